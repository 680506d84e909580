-- Up Migration

-- One row per Idempotency-Key that reached a handler (decisions §7), written in the handler's own
-- transaction so the stored response commits atomically with the handler's writes.
-- Who is running a key right now is not stored: a transaction-scoped advisory lock says so,
-- and it disappears with the transaction (or the connection of a crashed API process).
CREATE TABLE idempotency_keys (
  account_id uuid NOT NULL REFERENCES accounts (id),
  livemode boolean NOT NULL,
  key text NOT NULL CHECK (char_length(key) BETWEEN 1 AND 255),
  -- SHA-256 of method, path and canonical JSON body; the body itself (which may hold card data) is not kept.
  request_fingerprint text NOT NULL,
  response_status integer NOT NULL,
  -- json, not jsonb: json keeps the text as written, so a replay has the original key order, and it
  -- accepts any string a handler may echo (jsonb refuses \u0000, which would turn a success into a 500).
  response_body json NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (account_id, livemode, key)
);
-- Rows older than 24 h are ignored by lookups and deleted by the maintenance schedule.
CREATE INDEX idempotency_keys_created_idx ON idempotency_keys (created_at);

-- Down Migration
DROP TABLE idempotency_keys;
