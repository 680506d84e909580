import type { Queryable } from '../db/pool';
import type { AppContext, AppServices } from './context';
import type { HandlerResult } from './route';

type Run = (db: Queryable, afterCommit: (fn: () => Promise<void>) => void) => Promise<HandlerResult>;

/**
 * Runs a validated handler. Reads use the pool. Writes run in one transaction, so a crash
 * leaves either everything or nothing; work registered with afterCommit (starting a workflow)
 * runs once the transaction has committed, and a failure there is logged, not returned,
 * because the committed change is already durable and the sweeps finish the job.
 */
export async function runHandler(ctx: AppContext, services: AppServices, method: string, run: Run): Promise<HandlerResult> {
  if (method === 'get') return run(services.db.pool, () => undefined);
  const after: Array<() => Promise<void>> = [];
  const result = await services.db.withTransaction((tx) => run(tx, (fn) => after.push(fn)));
  for (const fn of after) {
    try {
      await fn();
    } catch (err) {
      ctx.state.log.warn({ err: (err as Error).message }, 'after-commit work failed; the sweep will retry it');
    }
  }
  return result;
}
