import type { Client } from '@temporalio/client';
import type { Config } from '../src/config';
import type { Db } from '../src/db/pool';
import type { Logger } from '../src/logger';
import { createWebhookActivities } from './webhooks';

export interface ActivityDeps {
  db: Db;
  config: Config;
  temporal: Client;
  logger: Logger;
  /** Injected so tests can pin time; activities never read Date.now() directly. */
  clock: () => Date;
}

/** Every activity the worker registers, built from its dependencies. Workflows proxy ReturnType<typeof createActivities>. */
export function createActivities(deps: ActivityDeps) {
  return {
    /** Liveness probe used by the start-up check and tests: proves the worker reaches the database. */
    async databaseTime(): Promise<string> {
      const { rows } = await deps.db.query('SELECT now() AS now');
      return (rows[0].now as Date).toISOString();
    },
    ...createWebhookActivities(deps),
  };
}

export type Activities = ReturnType<typeof createActivities>;
