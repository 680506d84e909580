-- Up Migration

CREATE TABLE accounts (
  id uuid PRIMARY KEY,
  name text NOT NULL,
  -- Service-Version pinned when the account was created (decisions §7).
  api_version text NOT NULL,
  verification_status text NOT NULL DEFAULT 'not_started'
    CHECK (verification_status IN ('not_started', 'pending', 'verified', 'rejected')),
  verification_rejection_reason text,
  -- Payout destinations: {"iban": "...", "holder": "..."} and {"address": "0x...", "network": "..."}.
  payout_bank jsonb,
  payout_wallet jsonb,
  created_at timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE api_keys (
  id uuid PRIMARY KEY,
  account_id uuid NOT NULL REFERENCES accounts (id),
  livemode boolean NOT NULL,
  -- SHA-256 of the secret; the secret itself is never stored.
  secret_hash text NOT NULL UNIQUE,
  prefix text NOT NULL,
  last4 text NOT NULL,
  scopes text[] NOT NULL,
  name text,
  created_at timestamptz NOT NULL DEFAULT now(),
  revoked_at timestamptz
);
CREATE INDEX api_keys_account_idx ON api_keys (account_id, livemode, id DESC);

-- Token buckets shared by every API process. UNLOGGED: losing them in a crash only refills the buckets.
CREATE UNLOGGED TABLE rate_limit_buckets (
  bucket_key text PRIMARY KEY,
  tokens double precision NOT NULL,
  refreshed_at timestamptz NOT NULL,
  allowed boolean NOT NULL
);

-- Down Migration
DROP TABLE rate_limit_buckets;
DROP TABLE api_keys;
DROP TABLE accounts;
