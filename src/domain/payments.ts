import { CoalescedMarks } from '../db/coalesced-marks';
import type { Queryable } from '../db/pool';
import { newUuid, publicId } from '../ids';
import type { PaymentMethodType, PaymentPatch, PaymentStatus } from '../temporal/contract';

export const CHECKOUT_TTL_MS = 24 * 3600 * 1000;

export interface PaymentRow {
  id: string;
  account_id: string;
  livemode: boolean;
  amount: number;
  currency: string;
  payout_type: 'bank' | 'wallet';
  payout_currency: string;
  methods: PaymentMethodType[];
  metadata: Record<string, string>;
  status: PaymentStatus;
  payment_method: PaymentPatch['payment_method'] | null;
  last_payment_error: PaymentPatch['last_payment_error'] | null;
  next_action: PaymentPatch['next_action'] | null;
  payout_status: 'pending' | 'paid' | 'failed' | null;
  payment_link_id: string | null;
  cancellation_reason: string | null;
  created_at: Date;
  expires_at: Date;
  workflow_started_at: Date | null;
  transition_seq: number;
}

export const checkoutUrl = (publicBaseUrl: string, paymentUuid: string) => `${publicBaseUrl}/checkout/${publicId('payment', paymentUuid)}`;

/** The Payment object as the REST API returns it (currencies upper case). */
export function serializePayment(p: PaymentRow, publicBaseUrl: string) {
  return {
    id: publicId('payment', p.id),
    object: 'payment' as const,
    amount: p.amount,
    currency: p.currency,
    status: p.status,
    checkout_url: checkoutUrl(publicBaseUrl, p.id),
    livemode: p.livemode,
    created: Math.floor(p.created_at.getTime() / 1000),
    expires_at: Math.floor(p.expires_at.getTime() / 1000),
    methods: p.methods,
    payout: { type: p.payout_type, currency: p.payout_currency },
    metadata: p.metadata,
    payment_method: p.payment_method ?? null,
    last_payment_error: p.last_payment_error ?? null,
    next_action: p.next_action ?? null,
    payout_status: p.payout_status,
    payment_link: p.payment_link_id ? publicId('paymentLink', p.payment_link_id) : null,
    cancellation_reason: p.cancellation_reason,
  };
}

/** The snapshot inside payment.* events: bare UUID id and lower-case currencies (spec 2.3). */
export function paymentSnapshot(p: PaymentRow, publicBaseUrl: string) {
  const s = serializePayment(p, publicBaseUrl);
  return { ...s, id: p.id, currency: p.currency.toLowerCase(), payout: { ...s.payout, currency: p.payout_currency.toLowerCase() } };
}

export interface NewPayment {
  accountId: string;
  livemode: boolean;
  amount: number;
  currency: string;
  payoutType: 'bank' | 'wallet';
  payoutCurrency: string;
  methods: PaymentMethodType[];
  metadata: Record<string, string>;
  paymentLinkId?: string | null;
}

export async function insertPayment(tx: Queryable, input: NewPayment, now = new Date()): Promise<PaymentRow> {
  const { rows } = await tx.query(
    `INSERT INTO payments (id, account_id, livemode, amount, currency, payout_type, payout_currency, methods, metadata,
                           status, payment_link_id, created_at, expires_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, 'requires_action', $10, $11, $12) RETURNING *`,
    [
      newUuid(),
      input.accountId,
      input.livemode,
      input.amount,
      input.currency,
      input.payoutType,
      input.payoutCurrency,
      input.methods,
      input.metadata,
      input.paymentLinkId ?? null,
      now,
      new Date(now.getTime() + CHECKOUT_TTL_MS),
    ],
  );
  return rows[0];
}

/** Scoped lookup: another account's or mode's payment is "not found", never "forbidden". */
export async function findPayment(db: Queryable, scope: { accountId: string; livemode: boolean }, id: string): Promise<PaymentRow | null> {
  const { rows } = await db.query('SELECT * FROM payments WHERE id = $1 AND account_id = $2 AND livemode = $3', [id, scope.accountId, scope.livemode]);
  return rows[0] ?? null;
}

export async function getPaymentById(db: Queryable, id: string): Promise<PaymentRow | null> {
  const { rows } = await db.query('SELECT * FROM payments WHERE id = $1', [id]);
  return rows[0] ?? null;
}

/** Newest first; the cursor is the bare UUID of the last item returned (ids are time-ordered). */
export async function listPayments(
  db: Queryable,
  scope: { accountId: string; livemode: boolean },
  opts: {
    limit: number;
    cursor?: string;
    status?: PaymentStatus;
    /** Inclusive bounds on the (time-ordered) id, from uuidV7Bounds: a created-at range as an index range. */
    idFrom?: string;
    idTo?: string;
    amountMin?: number;
    amountMax?: number;
  },
): Promise<{ rows: PaymentRow[]; hasMore: boolean }> {
  const params: unknown[] = [scope.accountId, scope.livemode, opts.limit + 1];
  let where = 'account_id = $1 AND livemode = $2';
  const add = (sql: string, value: unknown) => {
    params.push(value);
    where += ` AND ${sql.replace('?', `$${params.length}`)}`;
  };
  if (opts.cursor) add('id < ?', opts.cursor);
  if (opts.status) add('status = ?', opts.status);
  if (opts.idFrom) add('id >= ?', opts.idFrom);
  if (opts.idTo) add('id <= ?', opts.idTo);
  if (opts.amountMin !== undefined) add('amount >= ?', opts.amountMin);
  if (opts.amountMax !== undefined) add('amount <= ?', opts.amountMax);
  // The whole key of the list index, so a busy merchant never makes another's page walk the primary key (see events-query.ts).
  const { rows } = await db.query(`SELECT * FROM payments WHERE ${where} ORDER BY account_id, livemode, id DESC LIMIT $3`, params);
  return { rows: rows.slice(0, opts.limit), hasMore: rows.length > opts.limit };
}

/**
 * Records that a payment's workflow was started, so the sweep leaves it alone. Coalesced: one UPDATE
 * per window for every payment started in it, instead of a commit per payment (see CoalescedMarks; a
 * lost mark only makes the sweep retry a start that is then refused as a duplicate).
 */
export function markWorkflowStarted(db: Queryable, id: string): Promise<void> {
  let marks = workflowStartedMarks.get(db);
  if (!marks) {
    marks = new CoalescedMarks(db, 'UPDATE payments SET workflow_started_at = now() WHERE id = ANY ($1::uuid[]) AND workflow_started_at IS NULL', MARK_WINDOW_MS);
    workflowStartedMarks.set(db, marks);
  }
  return marks.mark(id);
}

/** Writes the marks still waiting for their window (at shutdown). */
export async function flushWorkflowStartedMarks(db: Queryable): Promise<void> {
  await workflowStartedMarks.get(db)?.flush();
}

const MARK_WINDOW_MS = 200;
const workflowStartedMarks = new WeakMap<Queryable, CoalescedMarks>();

const PATCHABLE = ['payment_method', 'last_payment_error', 'next_action', 'payout_status', 'cancellation_reason'] as const;

/**
 * Applies one numbered transition. Returns the updated row, or null when this number was
 * already applied (a retried activity), so the caller writes no second set of events.
 */
export async function applyPaymentTransition(
  tx: Queryable,
  input: { paymentId: string; seq: number; to: PaymentStatus | null; patch: PaymentPatch },
): Promise<PaymentRow | null> {
  const sets = ['status = COALESCE($3, status)', 'transition_seq = $2'];
  const params: unknown[] = [input.paymentId, input.seq, input.to];
  for (const column of PATCHABLE) {
    if (column in input.patch) {
      const value = input.patch[column];
      params.push(value === undefined ? null : typeof value === 'string' || value === null ? value : JSON.stringify(value));
      sets.push(`${column} = $${params.length}`);
    }
  }
  const { rows } = await tx.query(`UPDATE payments SET ${sets.join(', ')} WHERE id = $1 AND transition_seq < $2 RETURNING *`, params);
  return rows[0] ?? null;
}
