import path from 'node:path';
import { PROJECT_ROOT } from './temporal-binaries';

/** Where `npm start` keeps its state, and the ports it uses, on one machine. */
export function localDefaults(env: NodeJS.ProcessEnv = process.env) {
  const dataDir = path.resolve(env.DATA_DIR ?? path.join(PROJECT_ROOT, '.data'));
  const pgPort = Number(env.EMBEDDED_PG_PORT ?? 5433);
  return {
    dataDir,
    pgDataDir: path.join(dataDir, 'postgres'),
    pgPort,
    databaseUrl: `postgres://postgres:postgres@127.0.0.1:${pgPort}/payments`,
    temporalDbFile: path.join(dataDir, 'temporal.sqlite'),
    temporalPort: Number(env.TEMPORAL_PORT ?? 7233),
    temporalUiPort: Number(env.TEMPORAL_UI_PORT ?? 8233),
    devKeyFile: path.join(dataDir, 'sandbox-key.json'),
  };
}
