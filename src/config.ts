import { z } from 'zod';

/**
 * All configuration comes from environment variables, parsed once at start-up.
 * A bad value stops the process with a message naming the variable.
 */
const EnvSchema = z.object({
  NODE_ENV: z.enum(['development', 'production', 'test']).default('development'),
  HOST: z.string().default('0.0.0.0'),
  PORT: z.coerce.number().int().min(0).max(65535).default(3000),
  DATABASE_URL: z.string().regex(/^postgres(ql)?:\/\//, 'must be a postgres:// URL'),
  DB_POOL_SIZE: z.coerce.number().int().min(1).max(500).default(20),
  TEMPORAL_ADDRESS: z.string().default('localhost:7233'),
  TEMPORAL_NAMESPACE: z.string().default('default'),
  TEMPORAL_TASK_QUEUE: z.string().default('payments'),
  TEMPORAL_UI_URL: z.string().url().default('http://localhost:8233'),
  /** Set custom search attributes on workflows (and register them at worker start). Off for servers without them, such as the time-skipping test server. */
  TEMPORAL_SEARCH_ATTRIBUTES: z.enum(['true', 'false']).default('true').transform((v) => v === 'true'),
  /** The public address of the API, including any path prefix (https://host/api). */
  PUBLIC_BASE_URL: z.string().url().optional(),
  /** The path the app itself serves under. Defaults to the path of PUBLIC_BASE_URL; set it to "" when a proxy strips the prefix. */
  BASE_PATH: z.string().regex(/^(\/[^/]+)*$/, 'must be empty or start with / and not end with /').optional(),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  RATE_LIMIT_PER_SECOND: z.coerce.number().int().min(1).default(1000),
  MIGRATE_ON_START: z.enum(['true', 'false']).default('true').transform((v) => v === 'true'),
  /** Sandbox timings, in seconds (decisions §3). */
  SANDBOX_USDC_CONFIRM_SECONDS: z.coerce.number().min(0).default(30),
  SANDBOX_SEPA_CONFIRM_SECONDS: z.coerce.number().min(0).default(180),
  SANDBOX_SETTLEMENT_SECONDS: z.coerce.number().min(0).default(10),
});

export type Config = ReturnType<typeof loadConfig>;

/** Every environment variable the API and worker read (docker-compose.yml is checked against this). */
export const CONFIG_ENV_KEYS = Object.keys(EnvSchema.shape);

export function loadConfig(env: NodeJS.ProcessEnv = process.env) {
  const parsed = EnvSchema.safeParse(env);
  if (!parsed.success) {
    const lines = parsed.error.issues.map((i) => `  ${i.path.join('.')}: ${i.message}`);
    throw new ConfigError(`Invalid configuration:\n${lines.join('\n')}`);
  }
  const e = parsed.data;
  const publicBaseUrl = (e.PUBLIC_BASE_URL ?? `http://localhost:${e.PORT}`).replace(/\/+$/, '');
  const basePath = e.BASE_PATH ?? new URL(publicBaseUrl).pathname.replace(/\/+$/, '');
  return {
    env: e.NODE_ENV,
    host: e.HOST,
    port: e.PORT,
    databaseUrl: e.DATABASE_URL,
    dbPoolSize: e.DB_POOL_SIZE,
    temporal: {
      address: e.TEMPORAL_ADDRESS,
      namespace: e.TEMPORAL_NAMESPACE,
      taskQueue: e.TEMPORAL_TASK_QUEUE,
      uiUrl: e.TEMPORAL_UI_URL.replace(/\/+$/, ''),
      searchAttributes: e.TEMPORAL_SEARCH_ATTRIBUTES,
    },
    publicBaseUrl,
    basePath,
    logLevel: e.LOG_LEVEL,
    rateLimitPerSecond: e.RATE_LIMIT_PER_SECOND,
    migrateOnStart: e.MIGRATE_ON_START,
    sandbox: {
      usdcConfirmSeconds: e.SANDBOX_USDC_CONFIRM_SECONDS,
      sepaConfirmSeconds: e.SANDBOX_SEPA_CONFIRM_SECONDS,
      settlementSeconds: e.SANDBOX_SETTLEMENT_SECONDS,
    },
  };
}

export class ConfigError extends Error {}

/** For process entry points: parse or exit(1) with the message, never a stack trace. */
export function loadConfigOrExit(env: NodeJS.ProcessEnv = process.env): Config {
  try {
    return loadConfig(env);
  } catch (err) {
    if (err instanceof ConfigError) {
      process.stderr.write(`${err.message}\n`);
      process.exit(1);
    }
    throw err;
  }
}
