import type Koa from 'koa';
import getRawBody from 'raw-body';
import type { AppContext } from '../context';
import { errors } from '../errors';

export const JSON_BODY_LIMIT = '1mb';

/** Reads and parses JSON bodies: 413 over 1 MB, 415 for another content type, 400 for bad JSON. */
export function jsonBody(): Koa.Middleware {
  return async (ctx: AppContext, next) => {
    if (!['POST', 'PATCH', 'PUT', 'DELETE'].includes(ctx.method)) return next();
    const hasBody = ctx.request.length > 0 || ctx.get('Transfer-Encoding') !== '';
    if (hasBody && !ctx.is('application/json')) {
      throw errors.unsupportedMediaType(ctx.get('Content-Type') || '(none)');
    }
    let raw = '';
    if (hasBody) {
      try {
        raw = await getRawBody(ctx.req, { limit: JSON_BODY_LIMIT, encoding: 'utf8' });
      } catch (err: any) {
        if (err?.type === 'entity.too.large') throw errors.bodyTooLarge(JSON_BODY_LIMIT);
        throw errors.invalidJson('The request body could not be read.');
      }
    }
    if (raw.trim() === '') {
      ctx.state.body = {};
    } else {
      let parsed: unknown;
      try {
        parsed = JSON.parse(raw);
      } catch {
        throw errors.invalidJson();
      }
      if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) {
        throw errors.invalidJson('The request body must be a JSON object.');
      }
      ctx.state.body = parsed;
    }
    ctx.state.rawBody = raw;
    return next();
  };
}
