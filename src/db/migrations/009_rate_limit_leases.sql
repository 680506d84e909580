-- Up Migration

-- API processes take tokens in small leases (src/http/middleware/rate-limit.ts): one statement
-- may take several, and reports how many it took here.
ALTER TABLE rate_limit_buckets ADD COLUMN granted integer NOT NULL DEFAULT 0;

-- Down Migration

ALTER TABLE rate_limit_buckets DROP COLUMN granted;
