import type Koa from 'koa';
import type { Queryable } from '../../db/pool';
import type { AppContext, AppServices } from '../context';
import { errors } from '../errors';

/**
 * A token bucket per (account, mode) in PostgreSQL, so the limit holds across API processes.
 * One statement refills by elapsed time, takes a token if there is one, and reports the result.
 */
const TAKE_TOKEN_SQL = `
INSERT INTO rate_limit_buckets AS b (bucket_key, tokens, refreshed_at, allowed)
VALUES ($1, $2::double precision - 1, clock_timestamp(), true)
ON CONFLICT (bucket_key) DO UPDATE SET
  allowed = LEAST($2, b.tokens + EXTRACT(EPOCH FROM clock_timestamp() - b.refreshed_at) * $2) >= 1,
  tokens = LEAST($2, b.tokens + EXTRACT(EPOCH FROM clock_timestamp() - b.refreshed_at) * $2)
           - CASE WHEN LEAST($2, b.tokens + EXTRACT(EPOCH FROM clock_timestamp() - b.refreshed_at) * $2) >= 1 THEN 1 ELSE 0 END,
  refreshed_at = clock_timestamp()
RETURNING tokens, allowed`;

export interface TokenResult {
  allowed: boolean;
  remaining: number;
  /** Seconds until the bucket is full again. */
  resetSeconds: number;
  /** Seconds until the next token, when refused. */
  retryAfterSeconds: number;
}

export async function takeToken(db: Queryable, bucketKey: string, perSecond: number): Promise<TokenResult> {
  const { rows } = await db.query(TAKE_TOKEN_SQL, [bucketKey, perSecond]);
  const tokens = Number(rows[0].tokens);
  return {
    allowed: rows[0].allowed,
    remaining: Math.max(0, Math.floor(tokens)),
    resetSeconds: Math.max(0, Math.ceil((perSecond - tokens) / perSecond)),
    retryAfterSeconds: Math.max(1, Math.ceil((1 - tokens) / perSecond)),
  };
}

export function rateLimit(services: AppServices): Koa.Middleware {
  const limit = services.config.rateLimitPerSecond;
  return async (ctx: AppContext, next) => {
    const auth = ctx.state.auth!;
    const result = await takeToken(services.db.pool, `${auth.accountId}:${auth.livemode ? 'live' : 'test'}`, limit);
    ctx.set('RateLimit-Limit', String(limit));
    ctx.set('RateLimit-Remaining', String(result.remaining));
    ctx.set('RateLimit-Reset', String(result.resetSeconds));
    ctx.set('RateLimit-Policy', `${limit};w=1`);
    if (!result.allowed) throw errors.rateLimited(result.retryAfterSeconds);
    return next();
  };
}
