import { NativeConnection, Worker } from '@temporalio/worker';
import { Connection } from '@temporalio/client';
import path from 'node:path';
import fs from 'node:fs';
import { createActivities } from '../activities';
import { loadConfigOrExit, type Config } from './config';
import { createDb } from './db/pool';
import { createLogger } from './logger';
import { createTemporalClient, ensureSearchAttributes } from './temporal/client';
import { ensureSchedules } from './temporal/schedules';

export interface RunningWorker {
  worker: Worker;
  /** Resolves when the worker has stopped; rejects if it crashed. */
  done: Promise<void>;
  shutdown(): Promise<void>;
}

/** A pre-built bundle (npm run build:workflows) is used when present; otherwise workflows are bundled at start-up. */
function workflowSource(): { workflowBundle: { codePath: string } } | { workflowsPath: string } {
  const bundle = process.env.WORKFLOW_BUNDLE_PATH ?? path.join(__dirname, '..', 'dist', 'workflow-bundle.js');
  if (process.env.WORKFLOW_BUNDLE_PATH || (process.env.NODE_ENV === 'production' && fs.existsSync(bundle))) {
    return { workflowBundle: { codePath: bundle } };
  }
  return { workflowsPath: require.resolve('../workflows') };
}

export async function startWorker(config: Config): Promise<RunningWorker> {
  const logger = createLogger(config.logLevel).child({ process: 'worker' });
  const db = createDb(config.databaseUrl, config.dbPoolSize);
  const temporal = createTemporalClient(config);
  if (config.temporal.searchAttributes) {
    const admin = await Connection.connect({ address: config.temporal.address });
    await ensureSearchAttributes(admin, config.temporal.namespace).finally(() => admin.close());
  }
  const connection = await NativeConnection.connect({ address: config.temporal.address });
  const worker = await Worker.create({
    connection,
    namespace: config.temporal.namespace,
    taskQueue: config.temporal.taskQueue,
    ...workflowSource(),
    activities: createActivities({ db, config, temporal, logger, clock: () => new Date() }),
    // Every payment and every webhook delivery is a new workflow, and a new workflow's first task
    // comes from the normal (non-sticky) queue. The SDK's default gives that queue 2 of the 10
    // pollers (ratio 0.2), which capped new workflows near 50/s here; poll both queues equally.
    nonStickyToStickyPollRatio: 1,
  });
  await ensureSchedules(temporal, config.temporal.taskQueue);
  const done = worker.run().finally(async () => {
    await connection.close();
    await temporal.connection.close();
    await db.close();
  });
  logger.info({ taskQueue: config.temporal.taskQueue }, 'worker running');
  return {
    worker,
    done,
    async shutdown() {
      if (worker.getState() === 'RUNNING') worker.shutdown();
      await done;
    },
  };
}

if (require.main === module) {
  const config = loadConfigOrExit();
  startWorker(config).then(
    (w) => {
      for (const sig of ['SIGINT', 'SIGTERM'] as const) process.once(sig, () => void w.shutdown());
      w.done.then(
        () => process.exit(0),
        (err) => {
          process.stderr.write(`worker failed: ${err?.message ?? err}\n`);
          process.exit(1);
        },
      );
    },
    (err) => {
      process.stderr.write(`worker could not start: ${err?.message ?? err}\n`);
      process.exit(1);
    },
  );
}
