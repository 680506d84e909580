import { Connection } from '@temporalio/client';
import type { AppServices } from './context';

/** Healthy only when PostgreSQL answers and the Temporal frontend reports SERVING. */
export async function checkHealth(services: AppServices): Promise<{ ok: boolean; database: string; temporal: string }> {
  const [database, temporal] = await Promise.all([
    withTimeout(services.db.query('SELECT 1').then((): string => 'ok'), 2000).catch(() => 'unreachable'),
    withTimeout(temporalHealth(services.config.temporal.address), 2000).catch(() => 'unreachable'),
  ]);
  return { ok: database === 'ok' && temporal === 'ok', database, temporal };
}

/**
 * A one-off connection without the client's retry interceptor: the shared connection retries an
 * unreachable server from timers that outlive the request, and fire into a closed channel once the
 * API shuts down ("Channel has been shut down" as an uncaught exception). The deadline ends the call.
 */
async function temporalHealth(address: string): Promise<string> {
  const connection = Connection.lazy({ address, interceptors: [] });
  try {
    const r = await connection.withDeadline(Date.now() + 2000, () => connection.healthService.check({}));
    return r.status === 1 ? 'ok' : 'not_serving';
  } finally {
    await connection.close().catch(() => undefined);
  }
}

function withTimeout<T>(promise: Promise<T>, ms: number): Promise<T> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error('timeout')), ms);
    promise.then(
      (v) => {
        clearTimeout(timer);
        resolve(v);
      },
      (e) => {
        clearTimeout(timer);
        reject(e);
      },
    );
  });
}
