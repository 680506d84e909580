import type { RouteDef } from '../route';
import { accountRoutes } from './account/routes';
import { eventRoutes } from './events/routes';
import { paymentLinkRoutes } from './payment-links/routes';
import { paymentRoutes } from './payments/routes';
import { testHelperRoutes } from './test-helpers/routes';
import { webhookEndpointRoutes } from './webhook-endpoints/routes';

/** Every authenticated /v1 operation. Each resource folder exports its own list. */
export const apiRoutes: RouteDef<any, any, any>[] = [
  ...accountRoutes,
  ...paymentRoutes,
  ...paymentLinkRoutes,
  ...testHelperRoutes,
  ...eventRoutes,
  ...webhookEndpointRoutes,
];
