import type { RouteDef } from '../route';
import { accountRoutes } from './account/routes';

/** Every authenticated /v1 operation. Each resource folder exports its own list. */
export const apiRoutes: RouteDef<any, any, any>[] = [...accountRoutes];
