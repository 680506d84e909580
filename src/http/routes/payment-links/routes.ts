import type { AuthenticatedKey } from '../../../domain/accounts';
import {
  deactivatePaymentLink,
  findPaymentLink,
  insertPaymentLink,
  listPaymentLinks,
  serializePaymentLink,
  type PaymentLinkRow,
} from '../../../domain/payment-links';
import type { Queryable } from '../../../db/pool';
import { parsePublicId } from '../../../ids';
import { errors } from '../../errors';
import { defineRoute, listEnvelope } from '../../route';
import { z } from '../../zod';
import { envelope, paginationQuery } from '../list-params';
import { resolvePaymentSettings } from '../payments/schemas';
import { PaymentLinkCreateSchema, PaymentLinkIdParams, PaymentLinkSchema, type PaymentLinkCreateInput } from './schemas';

/** Parses a plink_ id; a malformed id is simply a link that does not exist. */
function linkUuid(id: string): string {
  const uuid = parsePublicId('paymentLink', id);
  if (!uuid) throw errors.notFound('payment link', id);
  return uuid;
}

async function loadPaymentLink(db: Queryable, auth: AuthenticatedKey, id: string): Promise<PaymentLinkRow> {
  const row = await findPaymentLink(db, { accountId: auth.accountId, livemode: auth.livemode }, linkUuid(id));
  if (!row) throw errors.notFound('payment link', id);
  return row;
}

export const paymentLinkRoutes = [
  defineRoute<PaymentLinkCreateInput>({
    method: 'post',
    path: '/v1/payment-links',
    operationId: 'createPaymentLink',
    summary: 'Create a payment link',
    tag: 'Payment links',
    scope: 'payment_links:write',
    body: PaymentLinkCreateSchema,
    responses: { 200: { description: 'The new, active payment link with the url to share.', schema: PaymentLinkSchema } },
    async handler({ body, auth, services, db }) {
      const row = await insertPaymentLink(db, {
        accountId: auth.accountId,
        livemode: auth.livemode,
        title: body.title,
        ...resolvePaymentSettings(body),
      });
      return { body: serializePaymentLink(row, services.config.publicBaseUrl) };
    },
  }),
  defineRoute<unknown, { limit: number; cursor?: string; active?: 'true' | 'false' }>({
    method: 'get',
    path: '/v1/payment-links',
    operationId: 'listPaymentLinks',
    summary: 'List payment links, newest first',
    tag: 'Payment links',
    scope: 'payment_links:read',
    query: z.object({ ...paginationQuery, active: z.enum(['true', 'false']).optional().openapi({ description: 'Only active (true) or deactivated (false) links.' }) }).strict(),
    responses: { 200: { description: 'A page of payment links.', schema: listEnvelope(PaymentLinkSchema) } },
    async handler({ query, auth, services, db }) {
      const { rows, hasMore } = await listPaymentLinks(
        db,
        { accountId: auth.accountId, livemode: auth.livemode },
        { limit: query.limit, cursor: query.cursor, active: query.active === undefined ? undefined : query.active === 'true' },
      );
      return { body: envelope(rows.map((r) => serializePaymentLink(r, services.config.publicBaseUrl)), hasMore, rows.at(-1)?.id) };
    },
  }),
  defineRoute<unknown, unknown, { id: string }>({
    method: 'get',
    path: '/v1/payment-links/{id}',
    operationId: 'getPaymentLink',
    summary: 'Retrieve a payment link',
    tag: 'Payment links',
    scope: 'payment_links:read',
    params: PaymentLinkIdParams,
    responses: { 200: { description: 'The payment link.', schema: PaymentLinkSchema }, 404: { description: 'No such payment link in this account and mode.' } },
    async handler({ params, auth, services, db }) {
      return { body: serializePaymentLink(await loadPaymentLink(db, auth, params.id), services.config.publicBaseUrl) };
    },
  }),
  defineRoute<unknown, unknown, { id: string }>({
    method: 'post',
    path: '/v1/payment-links/{id}/deactivate',
    operationId: 'deactivatePaymentLink',
    summary: 'Deactivate a payment link',
    tag: 'Payment links',
    scope: 'payment_links:write',
    params: PaymentLinkIdParams,
    body: z.object({}).strict(),
    responses: {
      200: { description: 'The deactivated link. Deactivating an inactive link returns it unchanged. Payments already created from it are not affected.', schema: PaymentLinkSchema },
      404: { description: 'No such payment link in this account and mode.' },
    },
    async handler({ params, auth, services, db }) {
      const row = await deactivatePaymentLink(db, { accountId: auth.accountId, livemode: auth.livemode }, linkUuid(params.id));
      if (!row) throw errors.notFound('payment link', params.id);
      return { body: serializePaymentLink(row, services.config.publicBaseUrl) };
    },
  }),
];
