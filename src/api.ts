import http from 'node:http';
import { loadConfigOrExit, type Config } from './config';
import { migrate } from './db/migrate';
import { createDb } from './db/pool';
import { flushWorkflowStartedMarks } from './domain/payments';
import { ApiKeyCache } from './http/api-key-cache';
import { createApp, type AppOptions } from './http/app';
import type { AppServices } from './http/context';
import { createLogger } from './logger';
import { createTemporalClient } from './temporal/client';

export interface RunningApi {
  server: http.Server;
  services: AppServices;
  url: string;
  close(): Promise<void>;
}

export async function startApi(config: Config, options: AppOptions = {}): Promise<RunningApi> {
  if (config.migrateOnStart) await migrate(config.databaseUrl);
  const logger = createLogger(config.logLevel).child({ process: 'api' });
  const db = createDb(config.databaseUrl, config.dbPoolSize);
  const apiKeys = new ApiKeyCache({ databaseUrl: config.databaseUrl, pool: db.pool, logger });
  await apiKeys.start();
  const services: AppServices = { config, logger, db, apiKeys, temporal: createTemporalClient(config) };
  const app = createApp(services, options);
  const server = http.createServer(app.callback());
  server.keepAliveTimeout = 65_000;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(config.port, config.host, () => resolve());
  });
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : config.port;
  logger.info({ port }, 'api listening');
  return {
    server,
    services,
    url: `http://127.0.0.1:${port}${config.basePath}`,
    async close() {
      await new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeAllConnections();
      await flushWorkflowStartedMarks(services.db.pool);
      await services.temporal.connection.close();
      await services.apiKeys.close();
      await services.db.close();
    },
  };
}

if (require.main === module) {
  const config = loadConfigOrExit();
  startApi(config).then(
    (api) => {
      for (const sig of ['SIGINT', 'SIGTERM'] as const) {
        process.once(sig, () => void api.close().then(() => process.exit(0)));
      }
    },
    (err) => {
      process.stderr.write(`api could not start: ${err?.message ?? err}\n`);
      process.exit(1);
    },
  );
}
