import type { Client } from '@temporalio/client';
import type Koa from 'koa';
import type { Config } from '../config';
import type { Db } from '../db/pool';
import type { ApiKeyCache } from './api-key-cache';
import type { AuthenticatedKey } from '../domain/accounts';
import type { ApiVersion } from '../domain/versions';
import type { Logger } from '../logger';

/** What the API process holds: built once at start-up and passed to every route. */
export interface AppServices {
  config: Config;
  db: Db;
  temporal: Client;
  logger: Logger;
  /** Authenticated keys, cached and invalidated by NOTIFY (see api-key-cache.ts). */
  apiKeys: ApiKeyCache;
}

export interface AppState {
  requestId: string;
  log: Logger;
  auth?: AuthenticatedKey;
  version?: ApiVersion;
  /** The parsed JSON body, set by the body middleware. */
  body?: unknown;
  rawBody?: string;
}

export type AppContext = Koa.ParameterizedContext<AppState>;
