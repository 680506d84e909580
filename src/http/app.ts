import Router from '@koa/router';
import Koa from 'koa';
import compose from 'koa-compose';
import type { AppContext, AppServices, AppState } from './context';
import { errors } from './errors';
import { authenticate, liveKeyGate, serviceVersion } from './middleware/auth';
import { jsonBody } from './middleware/body';
import { rateLimit } from './middleware/rate-limit';
import { requestContext } from './middleware/request-context';
import { buildOpenApiDocument } from './openapi';
import { mountRoutes, type RouteDef } from './route';
import { apiRoutes } from './routes';
import { checkHealth } from './health';
import { checkoutRouter } from '../checkout/routes';
import { paymentLinkPages } from '../links/page';
import { dashboardRouter } from '../dashboard/routes';

export interface AppOptions {
  /** Operations mounted after the product's own, e.g. test-only routes. Not in the OpenAPI document. */
  extraRoutes?: RouteDef<any, any, any>[];
}

/**
 * The Koa app. Everything is served under config.basePath (decisions §1):
 * public routes (health, OpenAPI, hosted pages), then the authenticated /v1 API.
 */
export function createApp(services: AppServices, options: AppOptions = {}): Koa<AppState> {
  const app = new Koa<AppState>();
  app.proxy = true;
  const base = services.config.basePath;
  const openApiDocument = buildOpenApiDocument(services.config.publicBaseUrl);

  app.use(requestContext(services));

  const health = async (ctx: AppContext) => {
    const result = await checkHealth(services);
    ctx.status = result.ok ? 200 : 503;
    ctx.body = result;
  };
  const publicRouter = new Router<AppState>({ prefix: base });
  publicRouter.get('/healthz', health);
  publicRouter.get('/v1/openapi.json', (ctx: AppContext) => {
    ctx.body = openApiDocument;
  });
  app.use(publicRouter.routes());
  app.use(checkoutRouter(services).routes());
  app.use(paymentLinkPages(services).routes());
  app.use(dashboardRouter(services).routes());
  if (base !== '') {
    // Load balancers and orchestrators probe /healthz on the process itself, whatever the public prefix.
    app.use(new Router<AppState>().get('/healthz', health).routes());
  }

  const apiPrefix = `${base}/v1/`;
  const apiRouter = new Router<AppState>({ prefix: base });
  mountRoutes(apiRouter, [...apiRoutes, ...(options.extraRoutes ?? [])], services);
  const api = compose<AppContext>([
    authenticate(services),
    rateLimit(services),
    liveKeyGate(),
    serviceVersion(),
    jsonBody(),
    apiRouter.routes() as any,
    apiRouter.allowedMethods({ throw: true, methodNotAllowed: errors.methodNotAllowed, notImplemented: errors.methodNotAllowed }) as any,
  ]);
  app.use((ctx: AppContext, next) => (ctx.path.startsWith(apiPrefix) ? api(ctx, next) : next()));

  // Anything no router answered: the error body, never Koa's plain-text 404.
  app.use(async (ctx: AppContext) => {
    if (ctx.body === undefined && ctx.status === 404) throw errors.routeNotFound(ctx.method, ctx.path);
  });
  return app;
}
