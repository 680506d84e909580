import crypto from 'node:crypto';
import type Koa from 'koa';
import { LATEST_API_VERSION } from '../../domain/versions';
import type { AppContext, AppServices } from '../context';
import { errorBody, toApiError } from '../errors';

/**
 * Outermost middleware: gives every request a Request-Id and a child logger,
 * turns any error into the error body of decisions §8, and logs one line per request.
 */
export function requestContext(services: AppServices): Koa.Middleware {
  return async (ctx: AppContext, next) => {
    const started = process.hrtime.bigint();
    const requestId = `req_${crypto.randomUUID().replace(/-/g, '')}`;
    ctx.state.requestId = requestId;
    ctx.state.log = services.logger.child({ request_id: requestId });
    ctx.set('Request-Id', requestId);
    ctx.set('Service-Version', LATEST_API_VERSION);
    try {
      await next();
    } catch (err) {
      const apiError = toApiError(err);
      if (apiError.status === 503) {
        ctx.state.log.warn({ err: { name: (err as Error)?.name, code: (err as any)?.code, message: (err as Error)?.message }, status: 503 }, 'dependency unavailable');
      } else if (apiError.status >= 500) {
        ctx.state.log.error({ err: describeError(err), status: apiError.status }, 'request failed');
      }
      ctx.status = apiError.status;
      for (const [name, value] of Object.entries(apiError.headers)) ctx.set(name, value);
      ctx.body = errorBody(apiError, requestId);
    } finally {
      const ms = Number(process.hrtime.bigint() - started) / 1e6;
      ctx.state.log.info({ method: ctx.method, path: ctx.path, status: ctx.status, ms: Math.round(ms * 10) / 10 }, 'request');
    }
  };
}

/** Logs keep the error's name, code and message; never request bodies, which may hold card data. */
function describeError(err: unknown) {
  const e = err as { name?: string; code?: string; message?: string; stack?: string };
  return { name: e?.name, code: e?.code, message: e?.message, stack: e?.stack };
}
