-- Up Migration

-- A reusable page that creates a new payment for every payer (decisions §1, spec 2.2).
-- The payment settings are stored resolved (defaults applied), so every payment made from a
-- link gets the same methods and payout, whatever the defaults become later.
CREATE TABLE payment_links (
  id uuid PRIMARY KEY,
  account_id uuid NOT NULL REFERENCES accounts (id),
  livemode boolean NOT NULL,
  title text NOT NULL CHECK (char_length(title) BETWEEN 1 AND 200),
  amount bigint NOT NULL CHECK (amount BETWEEN 1 AND 99999999),
  currency text NOT NULL,
  methods text[] NOT NULL,
  payout_type text NOT NULL CHECK (payout_type IN ('bank', 'wallet')),
  payout_currency text NOT NULL,
  metadata jsonb NOT NULL DEFAULT '{}',
  active boolean NOT NULL DEFAULT true,
  created_at timestamptz NOT NULL
);
CREATE INDEX payment_links_list_idx ON payment_links (account_id, livemode, id DESC);

-- Down Migration
DROP TABLE payment_links;
