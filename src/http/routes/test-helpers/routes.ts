import { serializePayment } from '../../../domain/payments';
import { driveCheckout, expireNow, type CheckoutInput } from '../../../payments/service';
import { errors } from '../../errors';
import { defineRoute } from '../../route';
import { z } from '../../zod';
import { loadPayment } from '../payments/routes';
import { PaymentIdParams, PaymentSchema, TestCheckoutSchema } from '../payments/schemas';

/** Sandbox-only helpers (decisions §3): a live key gets 404, as if they did not exist. */
function sandboxOnly(livemode: boolean, method: string, path: string) {
  if (livemode) throw errors.routeNotFound(method, path);
}

export const testHelperRoutes = [
  defineRoute<CheckoutInput, unknown, { id: string }>({
    method: 'post',
    path: '/v1/test-helpers/payments/{id}/checkout',
    operationId: 'testHelperCheckout',
    summary: 'Sandbox: drive the checkout without a browser (same workflow path as the hosted page)',
    tag: 'Test helpers',
    scope: 'payments:write',
    params: PaymentIdParams,
    body: TestCheckoutSchema,
    responses: { 200: { description: 'The payment after the attempt.', schema: PaymentSchema } },
    async handler({ params, body, auth, services, ctx }) {
      sandboxOnly(auth.livemode, ctx.method, ctx.path);
      // Reads go to the pool: the workflow writes through its own connection while we wait.
      const row = await loadPayment(services.db.pool, auth, params.id);
      return { body: serializePayment(await driveCheckout(services, row, body), services.config.publicBaseUrl) };
    },
  }),
  defineRoute<unknown, unknown, { id: string }>({
    method: 'post',
    path: '/v1/test-helpers/payments/{id}/expire',
    operationId: 'testHelperExpire',
    summary: 'Sandbox: fire the 24 h checkout expiry now',
    tag: 'Test helpers',
    scope: 'payments:write',
    params: PaymentIdParams,
    body: z.object({}).strict(),
    responses: { 200: { description: 'The expired (canceled) payment.', schema: PaymentSchema } },
    async handler({ params, auth, services, ctx }) {
      sandboxOnly(auth.livemode, ctx.method, ctx.path);
      const row = await loadPayment(services.db.pool, auth, params.id);
      return { body: serializePayment(await expireNow(services, row), services.config.publicBaseUrl) };
    },
  }),
];
