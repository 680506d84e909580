import { WorkflowExecutionAlreadyStartedError, type Client } from '@temporalio/client';
import { WorkflowIdReusePolicy } from '@temporalio/common';
import type { Config } from '../config';
import type { Db } from '../db/pool';
import type { EventRow } from '../domain/events';
import { newUuid, publicId } from '../ids';
import { SA } from '../temporal/search-attributes';
import { WEBHOOK_DELIVERY_WORKFLOW, webhookDeliveryWorkflowId, webhookReplayWorkflowId, type WebhookDeliveryInput } from '../temporal/webhooks';
import { undispatchedDeliveryPairs, type EndpointRow } from './repository';

export interface DispatchDeps {
  db: Db;
  temporal: Client;
  taskQueue: string;
  /** False on servers without our custom search attributes (the time-skipping test server). */
  searchAttributes?: boolean;
}

/** Starts one delivery workflow. Returns false when that workflow id was already used (a normal outcome). */
export async function startDelivery(
  deps: Omit<DispatchDeps, 'db'>,
  event: Pick<EventRow, 'id' | 'type'>,
  endpoint: Pick<EndpointRow, 'id'>,
  opts: { workflowId?: string; replay?: boolean } = {},
): Promise<{ workflowId: string; started: boolean }> {
  const eventId = publicId('event', event.id);
  const endpointId = publicId('webhookEndpoint', endpoint.id);
  const workflowId = opts.workflowId ?? webhookDeliveryWorkflowId(eventId, endpointId);
  const input: WebhookDeliveryInput = { eventId: event.id, endpointId: endpoint.id, ...(opts.replay ? { replay: true } : {}) };
  try {
    await deps.temporal.workflow.start(WEBHOOK_DELIVERY_WORKFLOW, {
      workflowId,
      taskQueue: deps.taskQueue,
      args: [input],
      // A pair is delivered by one workflow, ever: a second start (API retry, sweep) is refused.
      workflowIdReusePolicy: WorkflowIdReusePolicy.REJECT_DUPLICATE,
      ...(deps.searchAttributes === false
        ? {}
        : {
            typedSearchAttributes: [
              { key: SA.eventId, value: eventId },
              { key: SA.eventType, value: event.type },
              { key: SA.endpointId, value: endpointId },
            ],
          }),
    });
    return { workflowId, started: true };
  } catch (err) {
    if (err instanceof WorkflowExecutionAlreadyStartedError) return { workflowId, started: false };
    throw err;
  }
}

/** A replay: a new delivery workflow of this event to this endpoint, with its own id (…-replay-<uuid>). */
export async function startReplay(deps: Omit<DispatchDeps, 'db'>, event: Pick<EventRow, 'id' | 'type'>, endpoint: Pick<EndpointRow, 'id'>): Promise<{ workflowId: string }> {
  const workflowId = webhookReplayWorkflowId(publicId('event', event.id), publicId('webhookEndpoint', endpoint.id), newUuid());
  return startDelivery(deps, event, endpoint, { workflowId, replay: true });
}

/**
 * Delivers an event to one endpoint only (the dashboard's test event), and marks it dispatched
 * so that the maintenance sweep never sends it to the account's other endpoints.
 */
export async function dispatchToEndpoint(deps: DispatchDeps, event: Pick<EventRow, 'id' | 'type'>, endpoint: Pick<EndpointRow, 'id'>): Promise<{ workflowId: string }> {
  const started = await startDelivery(deps, event, endpoint);
  await markDispatched(deps.db, event.id);
  return started;
}

/** Dispatch dependencies from the service configuration. */
export function dispatchDeps(deps: { db: Db; temporal: Client; config: Config }): DispatchDeps {
  return { db: deps.db, temporal: deps.temporal, taskQueue: deps.config.temporal.taskQueue, searchAttributes: deps.config.temporal.searchAttributes };
}

/**
 * Starts the delivery workflow of every (event, matching endpoint) pair, then marks the events
 * dispatched. Call it after the transaction that wrote the events has committed, with the events
 * insertEvents left undispatched (`undispatchedIds`: none, unless an endpoint wants them). Safe to call
 * twice or concurrently: workflow ids are per pair and refuse a second start. If it fails half
 * way, dispatched_at stays NULL and the maintenance sweep calls it again.
 */
export async function dispatchEvents(deps: DispatchDeps, eventIds: string[]): Promise<void> {
  if (eventIds.length === 0) return;
  // Two queries whatever the number of events: this runs after every payment transition.
  const pairs = await undispatchedDeliveryPairs(deps.db.pool, eventIds);
  await Promise.all(pairs.map((p) => startDelivery(deps, { id: p.event_id, type: p.event_type as EventRow['type'] }, { id: p.endpoint_id })));
  await deps.db.query('UPDATE events SET dispatched_at = now() WHERE id = ANY ($1::uuid[]) AND dispatched_at IS NULL', [eventIds]);
}

async function markDispatched(db: Db, eventId: string): Promise<void> {
  await db.query('UPDATE events SET dispatched_at = now() WHERE id = $1 AND dispatched_at IS NULL', [eventId]);
}
