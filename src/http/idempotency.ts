import crypto from 'node:crypto';
import { escapeLiteral, type QueryResult } from 'pg';
import type { Queryable } from '../db/pool';
import type { AppContext } from './context';
import { ApiError, errorBody, errors } from './errors';
import type { HandlerResult } from './route';

/**
 * Idempotency-Key on every POST (decisions §7).
 *
 * Everything happens inside the handler's own transaction (see runHandler), so PostgreSQL,
 * not process memory, decides who runs a key, across any number of API processes:
 *
 * 1. `pg_try_advisory_xact_lock(hash(account, mode, key))`: not acquired → 409 idempotency_key_in_use.
 * 2. A stored response younger than 24 h → replay it (same request) or 422 idempotency_key_reused.
 * 3. Otherwise run the handler and insert its response in the same transaction: the record commits
 *    atomically with the handler's writes, and the lock is released by that commit.
 *
 * A crash of the API process mid-request closes its connection: PostgreSQL rolls the transaction
 * back and drops the lock, so a retry runs the request afresh instead of answering 409 forever.
 */

export const IDEMPOTENCY_HEADER = 'Idempotency-Key';
export const REPLAYED_HEADER = 'Idempotent-Replayed';
const MAX_KEY_LENGTH = 255;
/** Stored responses older than this are ignored (a retry runs as new) and purged by maintenance. */
export const RETENTION_HOURS = 24;

export interface IdempotentRequest {
  accountId: string;
  livemode: boolean;
  key: string;
  /** SHA-256 of method, path, query and canonical JSON body (requestFingerprint). */
  fingerprint: string;
}

export interface IdempotentOutcome {
  status: number;
  body: unknown;
  /** True when the response was read back from an earlier request. */
  replayed: boolean;
  /** The handler's own (stored) client error, to rethrow once the transaction has committed. */
  error?: ApiError;
}

/** The request's Idempotency-Key, undefined when absent; 400 when present but not 1–255 characters. */
export function readIdempotencyKey(ctx: AppContext): string | undefined {
  const raw = ctx.headers[IDEMPOTENCY_HEADER.toLowerCase()];
  if (raw === undefined) return undefined;
  const key = Array.isArray(raw) ? raw.join(', ') : raw;
  if (key.length < 1 || key.length > MAX_KEY_LENGTH) {
    throw errors.parameterInvalid(IDEMPOTENCY_HEADER, `${IDEMPOTENCY_HEADER} must be between 1 and ${MAX_KEY_LENGTH} characters long.`);
  }
  return key;
}

/**
 * JSON with object keys sorted recursively, so `{"a":1,"b":2}` and `{"b":2,"a":1}` match.
 * Values are not normalised: 1 and 1.0 parse to the same number, but "1" and 1 differ.
 */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map((v) => canonicalJson(v ?? null)).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.keys(value)
      .sort()
      .filter((k) => (value as Record<string, unknown>)[k] !== undefined)
      .map((k) => `${JSON.stringify(k)}:${canonicalJson((value as Record<string, unknown>)[k])}`);
    return `{${entries.join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

/** What makes two requests "the same": method, path (under the base path), query and canonical JSON body. */
export function requestFingerprint(method: string, path: string, query: unknown, body: unknown): string {
  return crypto
    .createHash('sha256')
    .update(`${method.toUpperCase()} ${path}\n${canonicalJson(query ?? {})}\n${canonicalJson(body ?? {})}`)
    .digest('hex');
}

/**
 * The 64-bit advisory lock key of (account, mode, key). A collision between two different keys is
 * harmless: it only makes the two requests take turns (one may get 409 while the other runs);
 * correctness rests on the primary key of idempotency_keys, not on the hash.
 */
export function advisoryLockKey(req: Pick<IdempotentRequest, 'accountId' | 'livemode' | 'key'>): bigint {
  const digest = crypto.createHash('sha256').update(`idempotency\0${req.accountId}\0${req.livemode ? 'live' : 'test'}\0${req.key}`).digest();
  return digest.readBigInt64BE(0);
}

/**
 * The claim, as one simple-protocol query of three statements so that it costs one round trip (and
 * none more when sent with BEGIN, see runHandler): the lock, the savepoint the handler's writes roll
 * back to, and the lookup of a stored response. The values are inlined, escaped by pg (the key is
 * client input). Read committed gives each statement of the query its own snapshot, so the lookup's
 * is taken after the lock was granted: it sees the response of a request that held the lock before
 * us, whose commit happens before its lock is released.
 */
export function claimStatements(req: IdempotentRequest): string {
  return `SELECT pg_try_advisory_xact_lock(${advisoryLockKey(req)}::bigint) AS locked;
    SAVEPOINT idempotent_handler;
    SELECT request_fingerprint, response_status, response_body FROM idempotency_keys
     WHERE account_id = ${escapeLiteral(req.accountId)} AND livemode = ${req.livemode} AND key = ${escapeLiteral(req.key)}
       AND created_at > now() - make_interval(hours => ${RETENTION_HOURS})`;
}

/**
 * Runs `run` at most once per key. Must be called inside the transaction that wraps the handler:
 * the lock, the lookup, the handler's writes and the stored response share it. `claimed` is the
 * result of claimStatements when the caller already sent it (with BEGIN).
 * A client error (ApiError below 500) thrown by the handler is stored and returned in `error`, with
 * the handler's writes undone by a savepoint; anything else is rethrown, so the caller rolls back
 * and nothing is stored (a retry runs again).
 */
export async function runIdempotent(
  tx: Queryable,
  req: IdempotentRequest,
  requestId: string,
  run: () => Promise<HandlerResult>,
  claimed?: QueryResult[],
): Promise<IdempotentOutcome> {
  const [lock, , stored] = claimed ?? ((await tx.query(claimStatements(req))) as unknown as QueryResult[]);
  if (!lock.rows[0].locked) throw errors.idempotencyKeyInUse();
  const previous = stored.rows[0] as { request_fingerprint: string; response_status: number; response_body: unknown } | undefined;
  if (previous) {
    if (previous.request_fingerprint !== req.fingerprint) throw errors.idempotencyKeyReused();
    return { status: previous.response_status, body: previous.response_body, replayed: true };
  }

  let outcome: IdempotentOutcome;
  try {
    const result = await run();
    outcome = { status: result.status ?? 200, body: result.body, replayed: false };
  } catch (err) {
    if (!(err instanceof ApiError) || err.status >= 500) throw err;
    // Same as without a key: the handler's writes are undone; only its answer is kept.
    await tx.query('ROLLBACK TO SAVEPOINT idempotent_handler');
    outcome = { status: err.status, body: errorBody(err, requestId), replayed: false, error: err };
  }

  // A row older than the retention period may still be there (not purged yet): this request replaces it.
  const saved = await tx.query(
    `INSERT INTO idempotency_keys AS k (account_id, livemode, key, request_fingerprint, response_status, response_body)
     VALUES ($1, $2, $3, $4, $5, $6)
     ON CONFLICT (account_id, livemode, key) DO UPDATE
       SET request_fingerprint = EXCLUDED.request_fingerprint, response_status = EXCLUDED.response_status,
           response_body = EXCLUDED.response_body, created_at = EXCLUDED.created_at
       WHERE k.created_at <= now() - make_interval(hours => $7)`,
    [req.accountId, req.livemode, req.key, req.fingerprint, outcome.status, JSON.stringify(outcome.body ?? null), RETENTION_HOURS],
  );
  // Unreachable while the lock is held; if it ever happens, roll everything back rather than act twice.
  if (saved.rowCount !== 1) throw new Error('idempotency record was written concurrently');
  return outcome;
}
