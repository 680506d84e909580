import type { Queryable } from '../db/pool';
import { newUuid, publicId, uuidV7Millis, uuidV7Seconds } from '../ids';
import { endpointMatchesSql } from '../webhooks/repository';

/** The 8 event types (decisions §4). */
export const EVENT_TYPES = [
  'payment.created',
  'payment.requires_action',
  'payment.processing',
  'payment.succeeded',
  'payment.failed',
  'payment.canceled',
  'payout.paid',
  'payout.failed',
] as const;
export type EventType = (typeof EVENT_TYPES)[number];

export interface EventRow {
  id: string;
  account_id: string;
  livemode: boolean;
  type: EventType;
  data: { object: Record<string, unknown> };
  created_at: Date;
  /** Set once deliveries to every matching endpoint have started (or at insert, when none matches). */
  dispatched_at: Date | null;
}

/** The Event object of spec 2.3, exactly as the API returns it and webhooks deliver it. */
export function serializeEvent(e: EventRow) {
  return {
    id: publicId('event', e.id),
    object: 'event' as const,
    type: e.type,
    livemode: e.livemode,
    created: uuidV7Seconds(e.id),
    data: e.data,
  };
}
export type EventObject = ReturnType<typeof serializeEvent>;

/**
 * Inserts events that report one change, all with the same object, in one statement. Call it inside
 * the transaction of that change, so that there is never a change without its events nor an event
 * without its change. `created` comes from the UUIDv7 id, so time filters are id-range scans.
 *
 * The same statement decides whether any endpoint wants each event: one that none does is stored
 * already dispatched, so the common case needs no work after commit (`undispatchedIds` is empty and
 * dispatchEvents does nothing). The rule is the one dispatchEvents and the sweep use. An endpoint
 * registered while this transaction is open is not seen; it receives the events created after it.
 */
export async function insertEvents(
  tx: Queryable,
  input: { accountId: string; livemode: boolean; types: readonly EventType[]; object: Record<string, unknown> },
): Promise<EventRow[]> {
  const ids = input.types.map(() => newUuid());
  const { rows } = await tx.query<EventRow>(
    `INSERT INTO events (id, account_id, livemode, type, data, created_at, dispatched_at)
     SELECT e.id, $1, $2, e.type, $3, e.created_at,
            CASE WHEN EXISTS (SELECT 1 FROM webhook_endpoints w WHERE ${endpointMatchesSql('w', { account: '$1', livemode: '$2', type: 'e.type', createdAt: 'e.created_at' })})
                 THEN NULL ELSE now() END
       FROM (SELECT id, type, to_timestamp(ms / 1000) AS created_at
               FROM unnest($4::uuid[], $5::text[], $6::double precision[]) AS u (id, type, ms)) e
     RETURNING *`,
    [input.accountId, input.livemode, { object: input.object }, ids, input.types, ids.map(uuidV7Millis)],
  );
  return rows.sort((a, b) => (a.id < b.id ? -1 : 1));
}

export async function insertEvent(
  tx: Queryable,
  input: { accountId: string; livemode: boolean; type: EventType; object: Record<string, unknown> },
): Promise<EventRow> {
  const [event] = await insertEvents(tx, { accountId: input.accountId, livemode: input.livemode, types: [input.type], object: input.object });
  return event;
}

/** The events dispatchEvents still has to hand to endpoints after commit. */
export function undispatchedIds(events: EventRow[]): string[] {
  return events.filter((e) => e.dispatched_at === null).map((e) => e.id);
}
