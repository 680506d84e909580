import { EVENT_TYPES } from '../../../domain/events';
import { serializeEvent } from '../../../domain/events';
import { getEvent, listEvents } from '../../../domain/events-query';
import { parsePublicId } from '../../../ids';
import { publicId } from '../../../ids';
import { startReplay } from '../../../webhooks/dispatch';
import { endpointsForEvent, getEndpoint, listDeliveries, serializeDelivery } from '../../../webhooks/repository';
import { errors } from '../../errors';
import { defineRoute, listEnvelope } from '../../route';
import { z } from '../../zod';
import { CursorParam, DEFAULT_LIMIT, LimitParam, page } from '../list-params';

export const EventSchema = z
  .object({
    id: z.string().openapi({ example: 'evt_0192f0c4-8a4e-7b2c-9d1e-3f4a5b6c7d8e' }),
    object: z.literal('event'),
    type: z.enum(EVENT_TYPES),
    livemode: z.boolean(),
    created: z.number().int().openapi({ description: 'Unix seconds.' }),
    data: z.object({ object: z.record(z.string(), z.unknown()).openapi({ description: 'Snapshot of the affected resource.' }) }),
  })
  .openapi('Event');

const unixSeconds = (description: string) => z.coerce.number().int().min(0).max(99_999_999_999).optional()
    // type: zod-to-openapi marks a coerced number with min(0) nullable (coerce(null) is 0); the API never accepts null here.
    .openapi({ type: 'integer', minimum: 0, description, example: 1795000000 });

export const EventListQuerySchema = z
  .object({
    type: z.enum(EVENT_TYPES).optional(),
    created_after: unixSeconds('Only events created at or after this Unix timestamp (seconds), inclusive.'),
    created_before: unixSeconds('Only events created at or before this Unix timestamp (seconds), inclusive.'),
    cursor: CursorParam,
    limit: LimitParam,
  })
  .strict();
export type EventListQuery = z.infer<typeof EventListQuerySchema>;

const EventIdParams = z.object({ id: z.string().openapi({ example: 'evt_0192f0c4-8a4e-7b2c-9d1e-3f4a5b6c7d8e' }) });
const DeliveryListQuerySchema = z.object({ cursor: CursorParam, limit: LimitParam }).strict();

const AttemptSchema = z
  .object({
    id: z.string().openapi({ example: 'wha_0192f0c4-8a4e-7b2c-9d1e-3f4a5b6c7d8e' }),
    object: z.literal('webhook_delivery_attempt'),
    attempt: z.number().int(),
    created: z.number().int().openapi({ description: 'When the request was sent (Unix seconds).' }),
    scheduled_at: z.number().int().openapi({ description: 'When the retry schedule planned it (Unix seconds).' }),
    request: z.object({ url: z.string(), headers: z.record(z.string(), z.string()), body: z.string() }),
    response: z.object({ status: z.number().int(), headers: z.record(z.string(), z.string()), body: z.string().openapi({ description: 'First 64 KiB.' }) }).nullable(),
    duration_ms: z.number().int(),
    error: z.string().nullable(),
  })
  .openapi('WebhookDeliveryAttempt');

export const DeliverySchema = z
  .object({
    id: z.string().openapi({ example: 'whd_0192f0c4-8a4e-7b2c-9d1e-3f4a5b6c7d8e' }),
    object: z.literal('webhook_delivery'),
    event: z.string(),
    endpoint: z.string(),
    workflow_id: z.string(),
    replay: z.boolean(),
    status: z.enum(['pending', 'succeeded', 'failed', 'canceled']),
    attempt_count: z.number().int(),
    next_attempt_at: z.number().int().nullable(),
    created: z.number().int(),
    completed_at: z.number().int().nullable(),
    attempts: z.array(AttemptSchema),
  })
  .openapi('WebhookDelivery');

export const ReplayBodySchema = z.object({ endpoint_id: z.string().optional().openapi({ example: 'we_0192f0c4-8a4e-7b2c-9d1e-3f4a5b6c7d8e' }) }).strict().openapi('EventReplayRequest');

const ReplaySchema = z
  .object({
    object: z.literal('event_replay'),
    event: z.string(),
    deliveries: z.array(z.object({ endpoint: z.string(), workflow_id: z.string() })),
  })
  .openapi('EventReplay');

function eventUuid(id: string): string {
  const uuid = parsePublicId('event', id);
  if (!uuid) throw errors.notFound('event', id);
  return uuid;
}

export const eventRoutes = [
  defineRoute({
    method: 'get',
    path: '/v1/events',
    operationId: 'listEvents',
    summary: 'List events, newest first',
    tag: 'Events',
    scope: 'events:read',
    query: EventListQuerySchema,
    responses: { 200: { description: 'A page of events.', schema: listEnvelope(EventSchema) } },
    async handler({ query, auth, db }) {
      const q = query as EventListQuery;
      const { items, hasMore } = await listEvents(db, {
        accountId: auth.accountId,
        livemode: auth.livemode,
        type: q.type,
        createdAfter: q.created_after,
        createdBefore: q.created_before,
        cursor: q.cursor,
        limit: q.limit ?? DEFAULT_LIMIT,
      });
      return { body: page(items.map(serializeEvent), hasMore, (e) => e.id.slice('evt_'.length)) };
    },
  }),
  defineRoute({
    method: 'get',
    path: '/v1/events/{id}',
    operationId: 'getEvent',
    summary: 'Retrieve an event',
    tag: 'Events',
    scope: 'events:read',
    params: EventIdParams,
    responses: { 200: { description: 'The event.', schema: EventSchema }, 404: { description: 'Unknown, purged, or another account’s or mode’s event.' } },
    async handler({ params, auth, db }) {
      const { id } = params as { id: string };
      const event = await getEvent(db, auth.accountId, auth.livemode, eventUuid(id));
      if (!event) throw errors.notFound('event', id);
      return { body: serializeEvent(event) };
    },
  }),
  defineRoute({
    method: 'get',
    path: '/v1/events/{id}/deliveries',
    operationId: 'listEventDeliveries',
    summary: 'List the webhook deliveries of an event, with every attempt',
    tag: 'Events',
    scope: 'webhooks:read',
    params: EventIdParams,
    query: DeliveryListQuerySchema,
    responses: { 200: { description: 'A page of deliveries, newest first.', schema: listEnvelope(DeliverySchema) } },
    async handler({ params, query, auth, db }) {
      const { id } = params as { id: string };
      const q = query as z.infer<typeof DeliveryListQuerySchema>;
      const event = await getEvent(db, auth.accountId, auth.livemode, eventUuid(id));
      if (!event) throw errors.notFound('event', id);
      const { items, hasMore } = await listDeliveries(db, { eventId: event.id, cursor: q.cursor, limit: q.limit ?? DEFAULT_LIMIT });
      return { body: page(items.map(serializeDelivery), hasMore, (d) => d.id.slice('whd_'.length)) };
    },
  }),
  defineRoute({
    method: 'post',
    path: '/v1/events/{id}/replay',
    operationId: 'replayEvent',
    summary: 'Deliver an event again, now',
    tag: 'Events',
    scope: 'webhooks:write',
    params: EventIdParams,
    body: ReplayBodySchema,
    responses: {
      202: { description: 'Delivery workflows started (one per endpoint; each has its own workflow id ending in -replay-<uuid>).', schema: ReplaySchema },
      404: { description: 'Unknown event or endpoint.' },
    },
    async handler({ params, body, auth, db, services }) {
      const { id } = params as { id: string };
      const event = await getEvent(db, auth.accountId, auth.livemode, eventUuid(id));
      if (!event) throw errors.notFound('event', id);
      let endpoints;
      if (body.endpoint_id !== undefined) {
        const uuid = parsePublicId('webhookEndpoint', body.endpoint_id);
        const endpoint = uuid ? await getEndpoint(db, auth.accountId, auth.livemode, uuid) : null;
        if (!endpoint) throw errors.notFound('webhook endpoint', body.endpoint_id);
        if (endpoint.disabled) throw errors.parameterInvalid('endpoint_id', 'This webhook endpoint is disabled; enable it first (PATCH disabled=false).');
        endpoints = [endpoint];
      } else {
        endpoints = await endpointsForEvent(db, event, { includeNewer: true });
      }
      // Nothing is written here: the workflow records the delivery, so the starts need no commit first.
      const deps = { temporal: services.temporal, taskQueue: services.config.temporal.taskQueue, searchAttributes: services.config.temporal.searchAttributes };
      const started = await Promise.all(
        endpoints.map((e) => startReplay(deps, event, e).then((r) => ({ endpoint: publicId('webhookEndpoint', e.id), workflow_id: r.workflowId }))),
      );
      return { status: 202, body: { object: 'event_replay' as const, event: publicId('event', event.id), deliveries: started } };
    },
  }),
];
