import type { Client } from '@temporalio/client';
import type { Config } from '../src/config';
import type { Db } from '../src/db/pool';
import type { Logger } from '../src/logger';
import { createPaymentActivities } from './payments';
import { createVerificationActivities } from './verification';
import { createWebhookActivities } from './webhooks';

export interface ActivityDeps {
  db: Db;
  config: Config;
  temporal: Client;
  logger: Logger;
  /** Injected so tests can pin time (the time-skipping server's clock is not the wall clock). */
  clock: () => Date;
}

/** Every activity the worker registers, built from its dependencies. Workflows proxy ReturnType<typeof createActivities>. */
export function createActivities(deps: ActivityDeps) {
  return {
    ...createPaymentActivities(deps),
    ...createWebhookActivities(deps),
    ...createVerificationActivities(deps),
  };
}

export type Activities = ReturnType<typeof createActivities>;
