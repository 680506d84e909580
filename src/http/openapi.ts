import { OpenAPIRegistry, OpenApiGeneratorV31 } from '@asteasolutions/zod-to-openapi';
import { LATEST_API_VERSION } from '../domain/versions';
import { registerRoutes } from './route';
import { apiRoutes } from './routes';

/** The OpenAPI 3.1 document, generated from the same zod schemas that validate requests. */
export function buildOpenApiDocument(serverUrl = 'http://localhost:3000') {
  const registry = new OpenAPIRegistry();
  registry.registerComponent('securitySchemes', 'bearerAuth', {
    type: 'http',
    scheme: 'bearer',
    description: 'A secret key: sk_test_… (sandbox) or sk_live_… (live).',
  });
  registerRoutes(registry, apiRoutes);
  return new OpenApiGeneratorV31(registry.definitions).generateDocument({
    openapi: '3.1.0',
    info: {
      title: 'Payment Service API',
      version: LATEST_API_VERSION,
      description:
        'Payments, payment links, events and webhooks. Send Service-Version to pin a dated version; errors follow {ok:false,error:{type,code,message,param?,request_id}}.',
    },
    servers: [{ url: serverUrl }],
  });
}
