-- Up Migration

-- Webhook endpoints (decisions §5). Deleting one only sets deleted_at, so the delivery history
-- of its events stays readable for the 30 days events are kept.
CREATE TABLE webhook_endpoints (
  id uuid PRIMARY KEY,
  account_id uuid NOT NULL REFERENCES accounts (id),
  livemode boolean NOT NULL,
  url text NOT NULL,
  description text,
  -- ['*'] or a list of event types.
  enabled_events text[] NOT NULL,
  disabled boolean NOT NULL DEFAULT false,
  -- Why it was disabled: 'merchant' (PATCH) or 'gone' (the receiver answered 410).
  disabled_reason text,
  created_at timestamptz NOT NULL,
  deleted_at timestamptz
);
CREATE INDEX webhook_endpoints_list_idx ON webhook_endpoints (account_id, livemode, id DESC) WHERE deleted_at IS NULL;

-- Signing secrets. The worker must sign with them, so they are stored retrievable (not hashed), in
-- their own table so that no endpoint query ever selects them by accident. expires_at is NULL for
-- the current secret; a rotation gives the previous one 24 h.
CREATE TABLE webhook_endpoint_secrets (
  id uuid PRIMARY KEY,
  endpoint_id uuid NOT NULL REFERENCES webhook_endpoints (id) ON DELETE CASCADE,
  secret text NOT NULL,
  created_at timestamptz NOT NULL,
  expires_at timestamptz
);
CREATE INDEX webhook_endpoint_secrets_endpoint_idx ON webhook_endpoint_secrets (endpoint_id, id);

-- One row per delivery workflow (an (event, endpoint) pair, or a replay of one).
-- Purging an event purges its deliveries and their attempts (ON DELETE CASCADE).
CREATE TABLE webhook_deliveries (
  id uuid PRIMARY KEY,
  workflow_id text NOT NULL UNIQUE,
  event_id uuid NOT NULL REFERENCES events (id) ON DELETE CASCADE,
  endpoint_id uuid NOT NULL REFERENCES webhook_endpoints (id),
  replay boolean NOT NULL DEFAULT false,
  status text NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'succeeded', 'failed', 'canceled')),
  attempt_count integer NOT NULL DEFAULT 0,
  next_attempt_at timestamptz,
  created_at timestamptz NOT NULL,
  completed_at timestamptz
);
CREATE INDEX webhook_deliveries_event_idx ON webhook_deliveries (event_id, id DESC);
CREATE INDEX webhook_deliveries_endpoint_idx ON webhook_deliveries (endpoint_id);

CREATE TABLE webhook_delivery_attempts (
  id uuid PRIMARY KEY,
  delivery_id uuid NOT NULL REFERENCES webhook_deliveries (id) ON DELETE CASCADE,
  attempt_number integer NOT NULL,
  -- When the schedule wanted the attempt (workflow time) and when the request was actually sent.
  scheduled_at timestamptz NOT NULL,
  attempted_at timestamptz NOT NULL,
  request_url text NOT NULL,
  request_headers jsonb NOT NULL,
  request_body text NOT NULL,
  response_status integer,
  response_headers jsonb,
  -- First 64 KiB only.
  response_body text,
  duration_ms integer NOT NULL,
  error text,
  UNIQUE (delivery_id, attempt_number)
);

-- Down Migration
DROP TABLE webhook_delivery_attempts;
DROP TABLE webhook_deliveries;
DROP TABLE webhook_endpoint_secrets;
DROP TABLE webhook_endpoints;
