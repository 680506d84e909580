import type Router from '@koa/router';
import type { OpenAPIRegistry } from '@asteasolutions/zod-to-openapi';
import type { ZodError, ZodObject, ZodType } from 'zod';
import type { AuthenticatedKey } from '../domain/accounts';
import type { Queryable } from '../db/pool';
import { IDEMPOTENCY_HEADER, readIdempotencyKey, REPLAYED_HEADER, requestFingerprint, type IdempotentRequest } from './idempotency';
import { runHandler } from './mutation';
import type { Scope } from '../domain/scopes';
import type { AppContext, AppServices } from './context';
import { ApiError, errors } from './errors';
import { z } from './zod';

type Method = 'get' | 'post' | 'patch' | 'delete';

export interface HandlerInput<B, Q, P> {
  body: B;
  query: Q;
  params: P;
  auth: AuthenticatedKey;
  services: AppServices;
  ctx: AppContext;
  /**
   * Where the handler reads and writes. For POST/PATCH/DELETE it is one transaction around the
   * whole handler (and the idempotency record); for GET it is the pool.
   */
  db: Queryable;
  /** Work that must only happen once the transaction has committed (starting workflows). */
  afterCommit(fn: () => Promise<void>): void;
}

export interface HandlerResult {
  status?: number;
  body: unknown;
}

/**
 * One definition per operation: it mounts the Koa route, validates with zod,
 * checks the scope, and registers the same schemas in the OpenAPI document.
 */
export interface RouteDef<B = unknown, Q = unknown, P = unknown> {
  method: Method;
  /** OpenAPI-style path under the base URL, e.g. /v1/payments/{id}. */
  path: string;
  operationId: string;
  summary: string;
  tag: string;
  scope?: Scope;
  body?: ZodType<B>;
  query?: ZodObject<any>;
  params?: ZodObject<any>;
  responses: Record<number, { description: string; schema?: ZodType }>;
  handler: (input: HandlerInput<B, Q, P>) => Promise<HandlerResult>;
}

export function defineRoute<B = unknown, Q = unknown, P = unknown>(def: RouteDef<B, Q, P>): RouteDef<B, Q, P> {
  return def;
}

/** Turns the first zod issue into the 400 of the error table, naming the failing parameter. */
export function zodToApiError(error: ZodError, input: unknown): ApiError {
  const issue = error.issues[0];
  if (issue.code === 'unrecognized_keys') {
    const prefix = formatParam(issue.path);
    return errors.parameterUnknown(prefix ? `${prefix}.${issue.keys[0]}` : issue.keys[0]);
  }
  const param = formatParam(issue.path);
  if (valueAt(input, issue.path) === undefined) {
    return errors.parameterMissing(param);
  }
  return errors.parameterInvalid(param || undefined, param ? `Invalid ${param}: ${issue.message}` : issue.message);
}

function formatParam(path: PropertyKey[]): string {
  return path.reduce<string>((acc, seg) => (typeof seg === 'number' ? `${acc}[${seg}]` : acc ? `${acc}.${String(seg)}` : String(seg)), '');
}

function valueAt(input: unknown, path: PropertyKey[]): unknown {
  let cur: any = input;
  for (const seg of path) {
    if (cur === null || typeof cur !== 'object') return undefined;
    cur = cur[seg as any];
  }
  return cur;
}

function parseWith<T>(schema: ZodType<T> | undefined, input: unknown): T {
  if (!schema) return input as T;
  const result = schema.safeParse(input);
  if (!result.success) throw zodToApiError(result.error, input);
  return result.data;
}

export function mountRoutes(router: Router<any, any>, routes: RouteDef<any, any, any>[], services: AppServices): void {
  for (const route of routes) {
    const koaPath = route.path.replace(/\{(\w+)\}/g, ':$1');
    router.register(koaPath, [route.method.toUpperCase()], async (ctx: AppContext) => {
      const auth = ctx.state.auth;
      if (!auth) throw errors.invalidApiKey();
      if (route.scope && !auth.scopes.includes(route.scope)) throw errors.insufficientScope(route.scope);
      // Every POST takes an Idempotency-Key (decisions §7); a bad one is refused like any other parameter.
      const idempotencyKey = route.method === 'post' ? readIdempotencyKey(ctx) : undefined;
      const params = parseWith(route.params, ctx.params);
      const query = parseWith(route.query, { ...ctx.query });
      const body = route.method === 'get' || route.method === 'delete' ? undefined : parseWith(route.body, ctx.state.body ?? {});
      // Only a request that passed auth and validation gets this far, so only such requests store anything.
      const idempotency: IdempotentRequest | undefined = idempotencyKey
        ? {
            accountId: auth.accountId,
            livemode: auth.livemode,
            key: idempotencyKey,
            // The body as sent (before zod defaults), so two requests match only if the client sent the same thing.
            fingerprint: requestFingerprint(route.method, ctx.path.slice(services.config.basePath.length), { ...ctx.query }, ctx.state.body ?? {}),
          }
        : undefined;
      const result = await runHandler(
        ctx,
        services,
        route.method,
        (db, afterCommit) => route.handler({ body, query, params, auth, services, ctx, db, afterCommit }),
        idempotency,
      );
      ctx.status = result.status ?? 200;
      ctx.body = result.body;
    }, { name: route.operationId });
  }
}

export const ErrorBodySchema = z
  .object({
    ok: z.literal(false),
    error: z.object({
      type: z.string(),
      code: z.string(),
      message: z.string(),
      param: z.string().optional(),
      request_id: z.string(),
    }),
  })
  .openapi('Error');

/** The list envelope of spec 2.4. */
export function listEnvelope<T extends ZodType>(item: T) {
  return z.object({
    ok: z.literal(true),
    data: z.object({
      items: z.array(item),
      nextCursor: z.string().uuid().nullable(),
      hasMore: z.boolean(),
    }),
  });
}

export function registerRoutes(registry: OpenAPIRegistry, routes: RouteDef<any, any, any>[]): void {
  for (const route of routes) {
    const responses: Record<string, any> = {};
    for (const [status, r] of Object.entries(route.responses)) {
      responses[status] = r.schema ? { description: r.description, content: { 'application/json': { schema: r.schema } } } : { description: r.description };
    }
    for (const [status, description] of Object.entries(COMMON_ERRORS)) {
      responses[status] ??= { description, content: { 'application/json': { schema: ErrorBodySchema } } };
    }
    if (route.method === 'post') {
      for (const [status, description] of Object.entries(IDEMPOTENCY_ERRORS)) {
        if (responses[status]) responses[status].description += ` Or: ${description}`;
        else responses[status] = { description, content: { 'application/json': { schema: ErrorBodySchema } } };
      }
      // What the handler answers (success or its own client error) is stored and may come back as a replay.
      for (const status of Object.keys(route.responses)) {
        if (Number(status) < 500) responses[status].headers = { [REPLAYED_HEADER]: REPLAYED_HEADER_OBJECT };
      }
    }
    registry.registerPath({
      method: route.method,
      path: route.path,
      operationId: route.operationId,
      summary: route.summary,
      tags: [route.tag],
      security: [{ bearerAuth: [] }],
      ...(route.scope ? { description: `Required scope: \`${route.scope}\`.` } : {}),
      parameters: route.method === 'post' ? [IDEMPOTENCY_KEY_PARAMETER] : [],
      request: {
        ...(route.params ? { params: route.params } : {}),
        ...(route.query ? { query: route.query } : {}),
        ...(route.body ? { body: { required: true, content: { 'application/json': { schema: route.body } } } } : {}),
      },
      responses,
    });
  }
}

const COMMON_ERRORS: Record<string, string> = {
  '400': 'Invalid request (invalid_request_error).',
  '401': 'Missing or invalid API key (authentication_error).',
  '403': 'Missing scope, or a live key on an unverified account (permission_error).',
  '429': 'Rate limit exceeded (rate_limit_error); see Retry-After.',
  '503': 'Temporarily unavailable (api_error).',
};

const IDEMPOTENCY_ERRORS: Record<string, string> = {
  '409': 'A request with this Idempotency-Key is still running (idempotency_error, idempotency_key_in_use).',
  '422': 'This Idempotency-Key was used with a different request (idempotency_error, idempotency_key_reused).',
};

const REPLAYED_HEADER_OBJECT = {
  description: 'Present, with the value `true`, when this is the stored response of an earlier request with the same Idempotency-Key.',
  schema: { type: 'string' as const, enum: ['true'] },
};

const IDEMPOTENCY_KEY_PARAMETER = {
  name: IDEMPOTENCY_HEADER,
  in: 'header' as const,
  required: false,
  description: 'A client-generated unique value (1–255 chars). A retry with the same key replays the first response instead of acting twice; keys are kept 24 h.',
  schema: { type: 'string' as const, minLength: 1, maxLength: 255 },
};
