-- Up Migration

-- API processes cache authenticated keys (src/http/api-key-cache.ts). Any change to a key or an
-- account (revocation, verification, pinned version) notifies them, and each drops its cache at once.
CREATE FUNCTION notify_auth_changed() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM pg_notify('auth_changed', '');
  RETURN NULL;
END $$;

CREATE TRIGGER api_keys_auth_changed AFTER UPDATE OR DELETE ON api_keys
  FOR EACH STATEMENT EXECUTE FUNCTION notify_auth_changed();
CREATE TRIGGER accounts_auth_changed AFTER UPDATE OR DELETE ON accounts
  FOR EACH STATEMENT EXECUTE FUNCTION notify_auth_changed();

-- Down Migration

DROP TRIGGER accounts_auth_changed ON accounts;
DROP TRIGGER api_keys_auth_changed ON api_keys;
DROP FUNCTION notify_auth_changed();
