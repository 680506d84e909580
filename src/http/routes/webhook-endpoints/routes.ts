import { EVENT_TYPES } from '../../../domain/events';
import { parsePublicId } from '../../../ids';
import { assertAllowedWebhookUrl, UnsafeDestinationError } from '../../../webhooks/address';
import {
  createEndpoint,
  deleteEndpoint,
  getEndpoint,
  listEndpoints,
  rotateSecret,
  serializeEndpoint,
  updateEndpoint,
} from '../../../webhooks/repository';
import { errors } from '../../errors';
import { defineRoute, listEnvelope } from '../../route';
import { z } from '../../zod';
import { CursorParam, DEFAULT_LIMIT, LimitParam, page } from '../list-params';

const EnabledEvents = z
  .array(z.union([z.literal('*'), z.enum(EVENT_TYPES)]))
  .min(1)
  .refine((list) => !list.includes('*') || list.length === 1, '"*" stands alone: send ["*"] or a list of event types')
  .openapi({ description: '["*"] for every event type, or a list of event types.', example: ['payment.succeeded'] });

const Url = z.string().min(1).max(2048).openapi({ example: 'https://example.com/webhooks' });
const Description = z.string().max(500).nullable();

export const WebhookEndpointCreateSchema = z
  .object({ url: Url, enabled_events: EnabledEvents, description: Description.optional() })
  .strict()
  .openapi('WebhookEndpointCreate');
export type WebhookEndpointCreateInput = z.infer<typeof WebhookEndpointCreateSchema>;

export const WebhookEndpointUpdateSchema = z
  .object({ url: Url.optional(), enabled_events: EnabledEvents.optional(), description: Description.optional(), disabled: z.boolean().optional() })
  .strict()
  .openapi('WebhookEndpointUpdate');
export type WebhookEndpointUpdateInput = z.infer<typeof WebhookEndpointUpdateSchema>;

export const WebhookEndpointSchema = z
  .object({
    id: z.string().openapi({ example: 'we_0192f0c4-8a4e-7b2c-9d1e-3f4a5b6c7d8e' }),
    object: z.literal('webhook_endpoint'),
    url: z.string(),
    enabled_events: z.array(z.string()),
    description: z.string().nullable(),
    disabled: z.boolean(),
    disabled_reason: z.enum(['merchant', 'gone']).nullable().openapi({ description: '`gone`: the receiver answered 410, so deliveries stopped.' }),
    livemode: z.boolean(),
    created: z.number().int(),
    secret: z.string().optional().openapi({ description: 'The signing secret (whsec_…). Returned only on creation and rotation.' }),
  })
  .openapi('WebhookEndpoint');

const DeletedSchema = z.object({ id: z.string(), object: z.literal('webhook_endpoint'), deleted: z.literal(true) }).openapi('WebhookEndpointDeleted');
const IdParams = z.object({ id: z.string().openapi({ example: 'we_0192f0c4-8a4e-7b2c-9d1e-3f4a5b6c7d8e' }) });
const ListQuery = z.object({ cursor: CursorParam, limit: LimitParam }).strict();

async function checkUrl(url: string, livemode: boolean): Promise<string> {
  try {
    await assertAllowedWebhookUrl(url, livemode);
  } catch (err) {
    if (err instanceof UnsafeDestinationError) throw errors.parameterInvalid('url', err.message);
    throw err;
  }
  return new URL(url).toString();
}

function endpointUuid(id: string): string {
  const uuid = parsePublicId('webhookEndpoint', id);
  if (!uuid) throw errors.notFound('webhook endpoint', id);
  return uuid;
}

export const webhookEndpointRoutes = [
  defineRoute({
    method: 'post',
    path: '/v1/webhook-endpoints',
    operationId: 'createWebhookEndpoint',
    summary: 'Register a webhook endpoint',
    tag: 'Webhook endpoints',
    scope: 'webhooks:write',
    body: WebhookEndpointCreateSchema,
    responses: { 200: { description: 'The endpoint, with its signing secret (shown only now and on rotation).', schema: WebhookEndpointSchema } },
    async handler({ body, auth, db }) {
      const url = await checkUrl(body.url, auth.livemode);
      const { endpoint, secret } = await createEndpoint(db, {
        accountId: auth.accountId,
        livemode: auth.livemode,
        url,
        enabledEvents: [...new Set<string>(body.enabled_events)],
        description: body.description ?? null,
      });
      return { body: serializeEndpoint(endpoint, secret) };
    },
  }),
  defineRoute({
    method: 'get',
    path: '/v1/webhook-endpoints',
    operationId: 'listWebhookEndpoints',
    summary: 'List webhook endpoints, newest first',
    tag: 'Webhook endpoints',
    scope: 'webhooks:read',
    query: ListQuery,
    responses: { 200: { description: 'A page of endpoints.', schema: listEnvelope(WebhookEndpointSchema) } },
    async handler({ query, auth, db }) {
      const q = query as z.infer<typeof ListQuery>;
      const { items, hasMore } = await listEndpoints(db, { accountId: auth.accountId, livemode: auth.livemode, cursor: q.cursor, limit: q.limit ?? DEFAULT_LIMIT });
      return { body: page(items.map((e) => serializeEndpoint(e)), hasMore, (e) => e.id.slice('we_'.length)) };
    },
  }),
  defineRoute({
    method: 'get',
    path: '/v1/webhook-endpoints/{id}',
    operationId: 'getWebhookEndpoint',
    summary: 'Retrieve a webhook endpoint',
    tag: 'Webhook endpoints',
    scope: 'webhooks:read',
    params: IdParams,
    responses: { 200: { description: 'The endpoint (without its secret).', schema: WebhookEndpointSchema }, 404: { description: 'Unknown endpoint.' } },
    async handler({ params, auth, db }) {
      const { id } = params as { id: string };
      const endpoint = await getEndpoint(db, auth.accountId, auth.livemode, endpointUuid(id));
      if (!endpoint) throw errors.notFound('webhook endpoint', id);
      return { body: serializeEndpoint(endpoint) };
    },
  }),
  defineRoute({
    method: 'patch',
    path: '/v1/webhook-endpoints/{id}',
    operationId: 'updateWebhookEndpoint',
    summary: 'Update a webhook endpoint (url, enabled_events, description, disabled)',
    tag: 'Webhook endpoints',
    scope: 'webhooks:write',
    params: IdParams,
    body: WebhookEndpointUpdateSchema,
    responses: { 200: { description: 'The updated endpoint.', schema: WebhookEndpointSchema }, 404: { description: 'Unknown endpoint.' } },
    async handler({ params, body, auth, db }) {
      const { id } = params as { id: string };
      const endpoint = await getEndpoint(db, auth.accountId, auth.livemode, endpointUuid(id), { forUpdate: true });
      if (!endpoint) throw errors.notFound('webhook endpoint', id);
      const url = body.url !== undefined ? await checkUrl(body.url, auth.livemode) : undefined;
      const updated = await updateEndpoint(db, endpoint.id, {
        url,
        enabledEvents: body.enabled_events ? [...new Set<string>(body.enabled_events)] : undefined,
        description: body.description,
        disabled: body.disabled,
      });
      return { body: serializeEndpoint(updated) };
    },
  }),
  defineRoute({
    method: 'delete',
    path: '/v1/webhook-endpoints/{id}',
    operationId: 'deleteWebhookEndpoint',
    summary: 'Delete a webhook endpoint (pending deliveries to it stop)',
    tag: 'Webhook endpoints',
    scope: 'webhooks:write',
    params: IdParams,
    responses: { 200: { description: 'Deleted.', schema: DeletedSchema }, 404: { description: 'Unknown endpoint.' } },
    async handler({ params, auth, db }) {
      const { id } = params as { id: string };
      const endpoint = await getEndpoint(db, auth.accountId, auth.livemode, endpointUuid(id), { forUpdate: true });
      if (!endpoint) throw errors.notFound('webhook endpoint', id);
      await deleteEndpoint(db, endpoint.id);
      return { body: { id, object: 'webhook_endpoint' as const, deleted: true as const } };
    },
  }),
  defineRoute({
    method: 'post',
    path: '/v1/webhook-endpoints/{id}/rotate-secret',
    operationId: 'rotateWebhookEndpointSecret',
    summary: 'Rotate the signing secret (the old one keeps signing for 24 h)',
    tag: 'Webhook endpoints',
    scope: 'webhooks:write',
    params: IdParams,
    responses: { 200: { description: 'The endpoint with its new secret.', schema: WebhookEndpointSchema }, 404: { description: 'Unknown endpoint.' } },
    async handler({ params, auth, db }) {
      const { id } = params as { id: string };
      const endpoint = await getEndpoint(db, auth.accountId, auth.livemode, endpointUuid(id), { forUpdate: true });
      if (!endpoint) throw errors.notFound('webhook endpoint', id);
      const secret = await rotateSecret(db, endpoint.id);
      return { body: serializeEndpoint(endpoint, secret) };
    },
  }),
];
