import crypto from 'node:crypto';
import type { Queryable } from '../db/pool';
import type { ApiKeyRow } from '../domain/accounts';
import type { EventRow } from '../domain/events';
import { newUuid } from '../ids';

/** Dashboard persistence: users, sessions, sign-in throttling, and the reads only the dashboard needs. */

export const SESSION_TTL_MS = 12 * 3600 * 1000;

export interface DashboardUser {
  id: string;
  account_id: string;
  email: string;
  password_hash: string;
}

export interface DashboardSession {
  token_hash: string;
  user_id: string;
  account_id: string;
  csrf_token: string;
  livemode: boolean;
  email: string;
  account_name: string;
}

export const sha256 = (value: string) => crypto.createHash('sha256').update(value, 'utf8').digest('hex');

export async function insertUser(db: Queryable, input: { accountId: string; email: string; passwordHash: string }): Promise<DashboardUser | null> {
  const { rows } = await db.query(
    `INSERT INTO dashboard_users (id, account_id, email, password_hash) VALUES ($1, $2, $3, $4)
     ON CONFLICT (email) DO NOTHING RETURNING *`,
    [newUuid(), input.accountId, input.email, input.passwordHash],
  );
  return rows[0] ?? null;
}

export async function findUserByEmail(db: Queryable, email: string): Promise<DashboardUser | null> {
  const { rows } = await db.query('SELECT * FROM dashboard_users WHERE email = $1', [email]);
  return rows[0] ?? null;
}

/** Creates a session; returns the cookie token (only its hash is stored). */
export async function createSession(db: Queryable, user: { id: string; account_id: string }): Promise<string> {
  const token = crypto.randomBytes(32).toString('base64url');
  await db.query(
    `INSERT INTO dashboard_sessions (token_hash, user_id, account_id, csrf_token, expires_at) VALUES ($1, $2, $3, $4, $5)`,
    [sha256(token), user.id, user.account_id, crypto.randomBytes(32).toString('base64url'), new Date(Date.now() + SESSION_TTL_MS)],
  );
  return token;
}

export async function findSession(db: Queryable, token: string): Promise<DashboardSession | null> {
  const { rows } = await db.query(
    `SELECT s.token_hash, s.user_id, s.account_id, s.csrf_token, s.livemode, u.email, a.name AS account_name
       FROM dashboard_sessions s JOIN dashboard_users u ON u.id = s.user_id JOIN accounts a ON a.id = s.account_id
      WHERE s.token_hash = $1 AND s.expires_at > now()`,
    [sha256(token)],
  );
  return rows[0] ?? null;
}

export async function deleteSession(db: Queryable, tokenHash: string): Promise<void> {
  await db.query('DELETE FROM dashboard_sessions WHERE token_hash = $1 OR expires_at < now()', [tokenHash]);
}

export async function setSessionMode(db: Queryable, tokenHash: string, livemode: boolean): Promise<void> {
  await db.query('UPDATE dashboard_sessions SET livemode = $2 WHERE token_hash = $1', [tokenHash, livemode]);
}

/** Sign-in throttling: after `max` failures within `windowMs` the key is locked for `lockMs`. */
export const THROTTLE = {
  email: { max: 5, windowMs: 15 * 60 * 1000, lockMs: 15 * 60 * 1000 },
  ip: { max: 30, windowMs: 15 * 60 * 1000, lockMs: 15 * 60 * 1000 },
} as const;

export async function lockedUntil(db: Queryable, keys: string[]): Promise<Date | null> {
  const { rows } = await db.query(
    'SELECT max(locked_until) AS until FROM dashboard_signin_throttle WHERE throttle_key = ANY($1) AND locked_until > now()',
    [keys],
  );
  return rows[0]?.until ?? null;
}

export async function recordSigninFailure(db: Queryable, key: string, limits: { max: number; windowMs: number; lockMs: number }): Promise<void> {
  // One statement: a window that has run out starts again at 1; reaching max sets the lock.
  await db.query(
    `INSERT INTO dashboard_signin_throttle AS t (throttle_key, failures, window_started_at, locked_until)
     VALUES ($1, 1, now(), CASE WHEN $2::int <= 1 THEN now() + $4 * interval '1 millisecond' END)
     ON CONFLICT (throttle_key) DO UPDATE SET
       failures = CASE WHEN t.window_started_at < now() - $3 * interval '1 millisecond' THEN 1 ELSE t.failures + 1 END,
       window_started_at = CASE WHEN t.window_started_at < now() - $3 * interval '1 millisecond' THEN now() ELSE t.window_started_at END,
       locked_until = CASE
         WHEN t.window_started_at >= now() - $3 * interval '1 millisecond' AND t.failures + 1 >= $2 THEN now() + $4 * interval '1 millisecond'
         ELSE t.locked_until END`,
    [key, limits.max, limits.windowMs, limits.lockMs],
  );
}

export async function clearSigninFailures(db: Queryable, key: string): Promise<void> {
  await db.query('DELETE FROM dashboard_signin_throttle WHERE throttle_key = $1', [key]);
}

export async function listApiKeys(db: Queryable, accountId: string, livemode: boolean): Promise<ApiKeyRow[]> {
  const { rows } = await db.query(
    `SELECT id, account_id, livemode, prefix, last4, scopes, name, created_at, revoked_at
       FROM api_keys WHERE account_id = $1 AND livemode = $2 ORDER BY id DESC LIMIT 200`,
    [accountId, livemode],
  );
  return rows;
}

/** The events about one payment, oldest first: payment.* carry its id, payout.* name it as payment. */
export async function listPaymentEvents(db: Queryable, scope: { accountId: string; livemode: boolean }, paymentUuid: string): Promise<EventRow[]> {
  const { rows } = await db.query(
    `SELECT * FROM events WHERE account_id = $1 AND livemode = $2 AND (data->'object'->>'id' = $3 OR data->'object'->>'payment' = $3)
      ORDER BY id ASC LIMIT 500`,
    [scope.accountId, scope.livemode, paymentUuid],
  );
  return rows;
}
