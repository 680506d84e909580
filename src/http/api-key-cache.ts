import pg from 'pg';
import type { Queryable } from '../db/pool';
import { findActiveKeyByHash, hashSecret, type AuthenticatedKey } from '../domain/accounts';
import type { Logger } from '../logger';

/** The channel that migration 008's triggers notify on any change to api_keys or accounts. */
export const AUTH_CHANGED_CHANNEL = 'auth_changed';

export interface ApiKeyCacheOptions {
  databaseUrl: string;
  pool: Queryable;
  logger: Logger;
  /** A safety net only: invalidation is what keeps entries correct. */
  ttlMs?: number;
  maxEntries?: number;
}

/**
 * Authenticated keys, cached in the API process so a request's authentication usually costs no
 * database round trip. Correctness comes from invalidation, not from the TTL: every change to a
 * key or an account (revocation, verification, pinned version) fires a NOTIFY, and each process
 * LISTENs on its own connection and drops the whole cache. While that connection is down the
 * cache is bypassed, so a missed notification can never serve a revoked key. Only keys that
 * exist are cached, so random bearer tokens cannot fill memory.
 */
export class ApiKeyCache {
  private readonly entries = new Map<string, { key: AuthenticatedKey; expiresAt: number }>();
  /** Bumped on every invalidation: a lookup that started before one must not store its result. */
  private generation = 0;
  private listener: pg.Client | null = null;
  private listening = false;
  private closed = false;
  private retryTimer: NodeJS.Timeout | undefined;
  private retryMs = 1000;
  private readonly ttlMs: number;
  private readonly maxEntries: number;

  constructor(private readonly opts: ApiKeyCacheOptions) {
    this.ttlMs = opts.ttlMs ?? 60_000;
    this.maxEntries = opts.maxEntries ?? 10_000;
  }

  /** Starts listening. Never throws: without the listener the cache simply stays bypassed. */
  async start(): Promise<void> {
    await this.connect();
  }

  async lookup(secret: string): Promise<AuthenticatedKey | null> {
    const hash = hashSecret(secret);
    if (!this.listening) return findActiveKeyByHash(this.opts.pool, hash);
    const hit = this.entries.get(hash);
    if (hit && hit.expiresAt > Date.now()) return hit.key;
    const generation = this.generation;
    const key = await findActiveKeyByHash(this.opts.pool, hash);
    if (key && this.listening && generation === this.generation) {
      if (this.entries.size >= this.maxEntries) this.entries.clear();
      this.entries.set(hash, { key, expiresAt: Date.now() + this.ttlMs });
    }
    return key;
  }

  isListening(): boolean {
    return this.listening;
  }

  /** Drops every entry. Called on each notification, and directly after a change made by this process. */
  invalidateAll(): void {
    this.generation++;
    this.entries.clear();
  }

  async close(): Promise<void> {
    this.closed = true;
    clearTimeout(this.retryTimer);
    this.stopListening();
    await this.listener?.end().catch(() => undefined);
    this.listener = null;
  }

  private stopListening(): void {
    this.listening = false;
    this.invalidateAll();
  }

  private async connect(): Promise<void> {
    if (this.closed) return;
    const client = new pg.Client({ connectionString: this.opts.databaseUrl });
    const lost = (err?: Error) => {
      if (this.listener !== client) return;
      this.listener = null;
      this.stopListening();
      client.end().catch(() => undefined);
      if (!this.closed) {
        this.opts.logger.warn({ err: err?.message }, 'api key cache: lost its LISTEN connection; bypassing the cache until it is back');
        this.scheduleReconnect();
      }
    };
    client.on('error', lost);
    client.on('end', () => lost());
    client.on('notification', () => this.invalidateAll());
    this.listener = client;
    try {
      await client.connect();
      await client.query(`LISTEN ${AUTH_CHANGED_CHANNEL}`);
      if (this.listener !== client || this.closed) return;
      // Anything cached before the listener was up may be stale.
      this.invalidateAll();
      this.listening = true;
      this.retryMs = 1000;
    } catch (err) {
      lost(err as Error);
    }
  }

  private scheduleReconnect(): void {
    clearTimeout(this.retryTimer);
    this.retryTimer = setTimeout(() => void this.connect(), this.retryMs);
    this.retryTimer.unref();
    this.retryMs = Math.min(this.retryMs * 2, 30_000);
  }
}
