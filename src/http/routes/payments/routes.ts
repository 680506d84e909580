import { findPayment, listPayments, serializePayment, type PaymentRow } from '../../../domain/payments';
import type { AuthenticatedKey } from '../../../domain/accounts';
import type { Queryable } from '../../../db/pool';
import { parsePublicId } from '../../../ids';
import { cancelPayment, createPayment } from '../../../payments/service';
import { errors } from '../../errors';
import { defineRoute, listEnvelope } from '../../route';
import { z } from '../../zod';
import { envelope, paginationQuery } from '../list-params';
import { PaymentCreateSchema, PaymentIdParams, PaymentSchema, resolvePaymentSettings, type PaymentCreateInput } from './schemas';

/** Loads a payment of the key's own account and mode; anything else is 404. */
export async function loadPayment(db: Queryable, auth: AuthenticatedKey, id: string): Promise<PaymentRow> {
  const uuid = parsePublicId('payment', id);
  const row = uuid ? await findPayment(db, { accountId: auth.accountId, livemode: auth.livemode }, uuid) : null;
  if (!row) throw errors.notFound('payment', id);
  return row;
}

export const paymentRoutes = [
  defineRoute<PaymentCreateInput>({
    method: 'post',
    path: '/v1/payments',
    operationId: 'createPayment',
    summary: 'Create a payment',
    tag: 'Payments',
    scope: 'payments:write',
    body: PaymentCreateSchema,
    responses: { 200: { description: 'The new payment, in requires_action with its checkout_url.', schema: PaymentSchema } },
    async handler({ body, auth, services, db, afterCommit }) {
      const row = await createPayment(services, db, afterCommit, {
        accountId: auth.accountId,
        livemode: auth.livemode,
        ...resolvePaymentSettings(body),
      });
      return { body: serializePayment(row, services.config.publicBaseUrl) };
    },
  }),
  defineRoute<unknown, { limit: number; cursor?: string; status?: PaymentRow['status'] }>({
    method: 'get',
    path: '/v1/payments',
    operationId: 'listPayments',
    summary: 'List payments, newest first',
    tag: 'Payments',
    scope: 'payments:read',
    query: z.object({ ...paginationQuery, status: z.enum(['requires_action', 'processing', 'succeeded', 'canceled']).optional() }).strict(),
    responses: { 200: { description: 'A page of payments.', schema: listEnvelope(PaymentSchema) } },
    async handler({ query, auth, services, db }) {
      const { rows, hasMore } = await listPayments(db, { accountId: auth.accountId, livemode: auth.livemode }, query);
      return { body: envelope(rows.map((r) => serializePayment(r, services.config.publicBaseUrl)), hasMore, rows.at(-1)?.id) };
    },
  }),
  defineRoute<unknown, unknown, { id: string }>({
    method: 'get',
    path: '/v1/payments/{id}',
    operationId: 'getPayment',
    summary: 'Retrieve a payment',
    tag: 'Payments',
    scope: 'payments:read',
    params: PaymentIdParams,
    responses: { 200: { description: 'The payment.', schema: PaymentSchema }, 404: { description: 'No such payment in this account and mode.' } },
    async handler({ params, auth, services, db }) {
      return { body: serializePayment(await loadPayment(db, auth, params.id), services.config.publicBaseUrl) };
    },
  }),
  defineRoute<unknown, unknown, { id: string }>({
    method: 'post',
    path: '/v1/payments/{id}/cancel',
    operationId: 'cancelPayment',
    summary: 'Cancel a payment that is waiting for the payer',
    tag: 'Payments',
    scope: 'payments:write',
    params: PaymentIdParams,
    body: z.object({}).strict(),
    responses: {
      200: { description: 'The canceled payment.', schema: PaymentSchema },
      409: { description: 'The payment is processing, succeeded or already canceled (payment_unexpected_state).' },
    },
    async handler({ params, auth, services, db }) {
      const row = await loadPayment(db, auth, params.id);
      return { body: serializePayment(await cancelPayment(services, row), services.config.publicBaseUrl) };
    },
  }),
];
