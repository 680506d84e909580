import type { Queryable } from '../db/pool';
import type { AppContext, AppServices } from './context';
import { claimStatements, REPLAYED_HEADER, runIdempotent, type IdempotentRequest } from './idempotency';
import type { HandlerResult } from './route';

type Run = (db: Queryable, afterCommit: (fn: () => Promise<void>) => void) => Promise<HandlerResult>;

/**
 * Runs a validated handler. Reads use the pool. Writes run in one transaction, so a crash
 * leaves either everything or nothing; work registered with afterCommit (starting a workflow)
 * runs once the transaction has committed, and a failure there is logged, not returned,
 * because the committed change is already durable and the sweeps finish the job.
 *
 * With an Idempotency-Key the same transaction also claims the key and stores the response
 * (see idempotency.ts). A replay runs no handler and no afterCommit work: the first request did it.
 */
export async function runHandler(
  ctx: AppContext,
  services: AppServices,
  method: string,
  run: Run,
  idempotency?: IdempotentRequest,
): Promise<HandlerResult> {
  if (method === 'get') return run(services.db.pool, () => undefined);
  const after: Array<() => Promise<void>> = [];
  // With a key, the claim goes in BEGIN's round trip.
  const outcome = await services.db.withTransaction(
    async (tx, claimed) => {
      const handler = () => run(tx, (fn) => after.push(fn));
      if (!idempotency) return { ...(await handler()), replayed: false, error: undefined };
      return runIdempotent(tx, idempotency, ctx.state.requestId, handler, claimed);
    },
    idempotency && claimStatements(idempotency),
  );
  if (outcome.replayed) {
    ctx.set(REPLAYED_HEADER, 'true');
    return { status: outcome.status, body: outcome.body };
  }
  // A stored client error: its response is committed; the handler's writes and hooks are not.
  if (outcome.error) throw outcome.error;
  for (const fn of after) {
    try {
      await fn();
    } catch (err) {
      ctx.state.log.warn({ err: (err as Error).message }, 'after-commit work failed; the sweep will retry it');
    }
  }
  return { status: outcome.status, body: outcome.body };
}
