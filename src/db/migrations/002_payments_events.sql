-- Up Migration

CREATE TABLE payments (
  id uuid PRIMARY KEY,
  account_id uuid NOT NULL REFERENCES accounts (id),
  livemode boolean NOT NULL,
  amount bigint NOT NULL CHECK (amount BETWEEN 1 AND 99999999),
  currency text NOT NULL,
  payout_type text NOT NULL CHECK (payout_type IN ('bank', 'wallet')),
  payout_currency text NOT NULL,
  methods text[] NOT NULL,
  metadata jsonb NOT NULL DEFAULT '{}',
  status text NOT NULL CHECK (status IN ('requires_action', 'processing', 'succeeded', 'canceled')),
  -- {type, brand?, last4?}: never a full card number.
  payment_method jsonb,
  last_payment_error jsonb,
  -- What the payer must do next at checkout, e.g. {"type": "challenge"}.
  next_action jsonb,
  payout_status text CHECK (payout_status IN ('pending', 'paid', 'failed')),
  payment_link_id uuid,
  cancellation_reason text,
  created_at timestamptz NOT NULL,
  expires_at timestamptz NOT NULL,
  -- Set once the payment's workflow is known to be started; the sweep starts the rest.
  workflow_started_at timestamptz,
  -- The workflow numbers its transitions; a retried transition activity with an old number is a no-op.
  transition_seq integer NOT NULL DEFAULT 0
);
CREATE INDEX payments_list_idx ON payments (account_id, livemode, id DESC);
CREATE INDEX payments_unstarted_idx ON payments (id) WHERE workflow_started_at IS NULL;

CREATE TABLE payouts (
  id uuid PRIMARY KEY,
  payment_id uuid NOT NULL UNIQUE REFERENCES payments (id),
  account_id uuid NOT NULL REFERENCES accounts (id),
  livemode boolean NOT NULL,
  amount bigint NOT NULL,
  currency text NOT NULL,
  source_amount bigint NOT NULL,
  source_currency text NOT NULL,
  -- The rate used, as a decimal string (e.g. "0.920000"), and the table it came from.
  fx_rate text NOT NULL,
  destination_type text NOT NULL,
  destination jsonb NOT NULL,
  status text NOT NULL CHECK (status IN ('pending', 'paid', 'failed')),
  failure_code text,
  created_at timestamptz NOT NULL,
  arrived_at timestamptz
);

-- Immutable; written in the same transaction as the change they report (decisions §4).
CREATE TABLE events (
  id uuid PRIMARY KEY,
  account_id uuid NOT NULL REFERENCES accounts (id),
  livemode boolean NOT NULL,
  type text NOT NULL,
  data jsonb NOT NULL,
  created_at timestamptz NOT NULL,
  -- Set once deliveries for every matching endpoint have been started; the sweep covers the rest.
  dispatched_at timestamptz
);
CREATE INDEX events_list_idx ON events (account_id, livemode, id DESC);
CREATE INDEX events_type_idx ON events (account_id, livemode, type, id DESC);
CREATE INDEX events_undispatched_idx ON events (id) WHERE dispatched_at IS NULL;

-- The sandbox processor's ledger: what a real processor keeps on its side. Requests carry
-- idempotency keys derived from the workflow id, so a retried activity never charges twice.
CREATE TABLE sandbox_processor_requests (
  idempotency_key text PRIMARY KEY,
  operation text NOT NULL,
  response jsonb,
  calls integer NOT NULL DEFAULT 1,
  created_at timestamptz NOT NULL DEFAULT now()
);

-- Down Migration
DROP TABLE sandbox_processor_requests;
DROP TABLE events;
DROP TABLE payouts;
DROP TABLE payments;
