import type { Client } from '@temporalio/client';
import type { Config } from '../src/config';
import type { Db } from '../src/db/pool';
import type { Logger } from '../src/logger';
import { createPaymentActivities } from './payments';

export interface ActivityDeps {
  db: Db;
  config: Config;
  temporal: Client;
  logger: Logger;
}

/** Every activity the worker registers, built from its dependencies. Workflows proxy ReturnType<typeof createActivities>. */
export function createActivities(deps: ActivityDeps) {
  return {
    ...createPaymentActivities(deps),
  };
}

export type Activities = ReturnType<typeof createActivities>;
