import type { Connection } from '@temporalio/client';
import type { AppServices } from './context';

const HEALTH_TIMEOUT_MS = 2000;

/** Healthy only when PostgreSQL answers and the Temporal frontend reports SERVING. */
export async function checkHealth(services: AppServices): Promise<{ ok: boolean; database: string; temporal: string }> {
  const connection = services.temporal.connection as Connection;
  const [database, temporal] = await Promise.all([
    withTimeout(services.db.query('SELECT 1').then((): string => 'ok'), HEALTH_TIMEOUT_MS).catch(() => 'unreachable'),
    // A deadline (not only a timer here) so the client's own retries stop too.
    connection
      .withDeadline(Date.now() + HEALTH_TIMEOUT_MS, () => connection.healthService.check({}))
      .then((r): string => (r.status === 1 ? 'ok' : 'not_serving'))
      .catch(() => 'unreachable'),
  ]);
  return { ok: database === 'ok' && temporal === 'ok', database, temporal };
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
