-- Up Migration

-- People who sign in to the merchant dashboard. One user per account for now.
CREATE TABLE dashboard_users (
  id uuid PRIMARY KEY,
  account_id uuid NOT NULL REFERENCES accounts (id),
  -- Stored lower-cased; unique.
  email text NOT NULL UNIQUE,
  -- scrypt$N$r$p$<salt>$<hash> (base64url); the password itself is never stored.
  password_hash text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX dashboard_users_account_idx ON dashboard_users (account_id);

-- Sessions: only the SHA-256 of the cookie token is stored.
CREATE TABLE dashboard_sessions (
  token_hash text PRIMARY KEY,
  user_id uuid NOT NULL REFERENCES dashboard_users (id) ON DELETE CASCADE,
  account_id uuid NOT NULL REFERENCES accounts (id),
  -- Per-session CSRF token, echoed in every state-changing form.
  csrf_token text NOT NULL,
  -- The sandbox/live toggle.
  livemode boolean NOT NULL DEFAULT false,
  created_at timestamptz NOT NULL DEFAULT now(),
  expires_at timestamptz NOT NULL
);
CREATE INDEX dashboard_sessions_expiry_idx ON dashboard_sessions (expires_at);

-- Sign-in throttling, per e-mail ("email:<addr>") and per client address ("ip:<addr>").
CREATE TABLE dashboard_signin_throttle (
  throttle_key text PRIMARY KEY,
  failures integer NOT NULL,
  window_started_at timestamptz NOT NULL,
  locked_until timestamptz
);

-- Tier 1 verification submissions; attempt numbers the account's submissions (workflow id account-verification-acct_<uuid>-<attempt>).
CREATE TABLE account_verifications (
  id uuid PRIMARY KEY,
  account_id uuid NOT NULL REFERENCES accounts (id),
  attempt integer NOT NULL,
  details jsonb NOT NULL,
  status text NOT NULL CHECK (status IN ('pending', 'verified', 'rejected')),
  rejection_reason text,
  created_at timestamptz NOT NULL DEFAULT now(),
  decided_at timestamptz,
  UNIQUE (account_id, attempt)
);

-- The dashboard's payment detail lists the events about one payment (payment.* by id, payout.* by payment).
CREATE INDEX events_object_id_idx ON events (account_id, livemode, (data->'object'->>'id'));
CREATE INDEX events_object_payment_idx ON events (account_id, livemode, (data->'object'->>'payment'));
CREATE INDEX payments_status_list_idx ON payments (account_id, livemode, status, id DESC);

-- Down Migration
DROP INDEX payments_status_list_idx;
DROP INDEX events_object_payment_idx;
DROP INDEX events_object_id_idx;
DROP TABLE account_verifications;
DROP TABLE dashboard_signin_throttle;
DROP TABLE dashboard_sessions;
DROP TABLE dashboard_users;
