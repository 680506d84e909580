import type Koa from 'koa';
import type { Queryable } from '../../db/pool';
import type { AppContext, AppServices } from '../context';
import { errors } from '../errors';

/**
 * A token bucket per (account, mode) in PostgreSQL, so the limit holds across API processes.
 * One statement refills the bucket by the elapsed time, takes up to $3 whole tokens (none if
 * there is not one), and reports how many it took and how many are left.
 */
const AVAILABLE = 'LEAST($2, b.tokens + EXTRACT(EPOCH FROM clock_timestamp() - b.refreshed_at) * $2)';
const TAKE_TOKENS = `INSERT INTO rate_limit_buckets AS b (bucket_key, tokens, refreshed_at, allowed, granted)
   VALUES ($1, $2::double precision - LEAST($3::int, FLOOR($2::double precision)), clock_timestamp(), true, LEAST($3::int, FLOOR($2::double precision)))
   ON CONFLICT (bucket_key) DO UPDATE SET
     granted = LEAST($3::int, FLOOR(${AVAILABLE})),
     allowed = ${AVAILABLE} >= 1,
     tokens = GREATEST(0, ${AVAILABLE} - LEAST($3::int, FLOOR(${AVAILABLE}))),
     refreshed_at = clock_timestamp()
   RETURNING tokens, granted`;

export interface TokenResult {
  allowed: boolean;
  remaining: number;
  /** Seconds until the bucket is full again. */
  resetSeconds: number;
  /** Seconds until the next token, when refused. */
  retryAfterSeconds: number;
}

/** Takes up to `want` tokens from the shared bucket in one statement. */
export async function takeTokens(db: Queryable, bucketKey: string, perSecond: number, want: number): Promise<{ granted: number; tokensLeft: number }> {
  const { rows } = await db.query(TAKE_TOKENS, [bucketKey, perSecond, want]);
  return { granted: Number(rows[0].granted), tokensLeft: Number(rows[0].tokens) };
}

/** How long a process may hold leased tokens before it must give them up unused. */
export const LEASE_MS = 1000;

/**
 * How many tokens a process takes from the shared bucket at once: a fiftieth of a second's worth
 * (20 at the default 1000/s, at most 100), so one database statement serves many requests. Under
 * 100/s it is 1, so small limits stay exact. Unused tokens lapse after LEASE_MS, so a process can
 * waste at most lease − 1 tokens a second per bucket (2 % of the limit).
 */
export function leaseSize(perSecond: number): number {
  return Math.max(1, Math.min(100, Math.floor(perSecond / 50)));
}

interface Lease {
  tokens: number;
  expiresAt: number;
  /** What the shared bucket held after this lease was taken. */
  bucketLeft: number;
}

/**
 * The limiter of one API process: hands out tokens leased from the shared PostgreSQL bucket, and
 * goes back to the bucket (one statement, shared by every request waiting on that bucket) only
 * when its lease is used up or has lapsed.
 */
export class RateLimiter {
  private readonly leases = new Map<string, Lease>();
  private readonly refills = new Map<string, Promise<Lease | null>>();

  constructor(
    private readonly db: Queryable,
    private readonly perSecond: number,
    private readonly clock: () => number = Date.now,
  ) {}

  async take(bucketKey: string): Promise<TokenResult> {
    for (;;) {
      const lease = this.leases.get(bucketKey);
      if (lease && lease.tokens >= 1 && lease.expiresAt > this.clock()) {
        lease.tokens--;
        return this.result(true, lease.bucketLeft + lease.tokens);
      }
      let refill = this.refills.get(bucketKey);
      if (!refill) {
        refill = this.refill(bucketKey).finally(() => this.refills.delete(bucketKey));
        this.refills.set(bucketKey, refill);
      }
      const fresh = await refill;
      // An empty bucket refuses everyone who waited on this refill; otherwise take from the new lease.
      if (!fresh) return this.result(false, 0);
    }
  }

  private async refill(bucketKey: string): Promise<Lease | null> {
    const { granted, tokensLeft } = await takeTokens(this.db, bucketKey, this.perSecond, leaseSize(this.perSecond));
    const lease = { tokens: granted, expiresAt: this.clock() + LEASE_MS, bucketLeft: Math.floor(tokensLeft) };
    this.leases.set(bucketKey, lease);
    return granted >= 1 ? lease : null;
  }

  private result(allowed: boolean, remaining: number): TokenResult {
    return {
      allowed,
      remaining: Math.max(0, Math.floor(remaining)),
      resetSeconds: Math.max(0, Math.ceil((this.perSecond - remaining) / this.perSecond)),
      // The limit is a whole number per second, so a refused request always has a token within 1 s.
      retryAfterSeconds: 1,
    };
  }
}

export function rateLimit(services: AppServices): Koa.Middleware {
  const limit = services.config.rateLimitPerSecond;
  const limiter = new RateLimiter(services.db.pool, limit);
  return async (ctx: AppContext, next) => {
    const auth = ctx.state.auth!;
    const result = await limiter.take(`${auth.accountId}:${auth.livemode ? 'live' : 'test'}`);
    ctx.set('RateLimit-Limit', String(limit));
    ctx.set('RateLimit-Remaining', String(result.remaining));
    ctx.set('RateLimit-Reset', String(result.resetSeconds));
    ctx.set('RateLimit-Policy', `${limit};w=1`);
    if (!result.allowed) throw errors.rateLimited(result.retryAfterSeconds);
    return next();
  };
}
