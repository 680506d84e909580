import type { Queryable } from '../db/pool';
import { newUuid, publicId, uuidV7Seconds } from '../ids';

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
 * Inserts an event. Call it inside the transaction of the change it reports, so that there is
 * never a change without its event nor an event without its change. `created` comes from the
 * UUIDv7 id, so time filters are id-range scans.
 */
export async function insertEvent(
  tx: Queryable,
  input: { accountId: string; livemode: boolean; type: EventType; object: Record<string, unknown> },
): Promise<EventRow> {
  const id = newUuid();
  const { rows } = await tx.query(
    `INSERT INTO events (id, account_id, livemode, type, data, created_at)
     VALUES ($1, $2, $3, $4, $5, to_timestamp($6::double precision / 1000)) RETURNING *`,
    [id, input.accountId, input.livemode, input.type, { object: input.object }, parseInt(id.replace(/-/g, '').slice(0, 12), 16)],
  );
  return rows[0];
}
