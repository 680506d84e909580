import type { Queryable } from '../db/pool';
import { newUuid, publicId } from '../ids';
import type { PaymentMethodType } from '../temporal/contract';

export interface PaymentLinkRow {
  id: string;
  account_id: string;
  livemode: boolean;
  title: string;
  amount: number;
  currency: string;
  methods: PaymentMethodType[];
  payout_type: 'bank' | 'wallet';
  payout_currency: string;
  metadata: Record<string, string>;
  active: boolean;
  created_at: Date;
}

/** The hosted page of a link; absolute, with the base path (decisions §1). */
export const paymentLinkUrl = (publicBaseUrl: string, linkUuid: string) => `${publicBaseUrl}/links/${publicId('paymentLink', linkUuid)}`;

/** The PaymentLink object as the REST API returns it. */
export function serializePaymentLink(l: PaymentLinkRow, publicBaseUrl: string) {
  return {
    id: publicId('paymentLink', l.id),
    object: 'payment_link' as const,
    url: paymentLinkUrl(publicBaseUrl, l.id),
    title: l.title,
    amount: l.amount,
    currency: l.currency,
    active: l.active,
    livemode: l.livemode,
    created: Math.floor(l.created_at.getTime() / 1000),
    methods: l.methods,
    payout: { type: l.payout_type, currency: l.payout_currency },
    metadata: l.metadata,
  };
}

export interface NewPaymentLink {
  accountId: string;
  livemode: boolean;
  title: string;
  amount: number;
  currency: string;
  methods: PaymentMethodType[];
  payoutType: 'bank' | 'wallet';
  payoutCurrency: string;
  metadata: Record<string, string>;
}

export async function insertPaymentLink(tx: Queryable, input: NewPaymentLink, now = new Date()): Promise<PaymentLinkRow> {
  const { rows } = await tx.query(
    `INSERT INTO payment_links (id, account_id, livemode, title, amount, currency, methods, payout_type, payout_currency, metadata, created_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11) RETURNING *`,
    [newUuid(), input.accountId, input.livemode, input.title, input.amount, input.currency, input.methods, input.payoutType, input.payoutCurrency, input.metadata, now],
  );
  return rows[0];
}

type Scope = { accountId: string; livemode: boolean };

/** Scoped lookup: another account's or mode's link is "not found", never "forbidden". */
export async function findPaymentLink(db: Queryable, scope: Scope, id: string): Promise<PaymentLinkRow | null> {
  const { rows } = await db.query('SELECT * FROM payment_links WHERE id = $1 AND account_id = $2 AND livemode = $3', [id, scope.accountId, scope.livemode]);
  return rows[0] ?? null;
}

/**
 * Unscoped lookup for the public page, where the link id itself is the credential. With
 * forShare, a concurrent deactivation waits until the payment being created has committed,
 * so no payment is created from a link after its deactivation committed.
 */
export async function getPaymentLinkForPage(
  db: Queryable,
  id: string,
  opts: { forShare?: boolean } = {},
): Promise<(PaymentLinkRow & { account_name: string }) | null> {
  const { rows } = await db.query(
    `SELECT l.*, a.name AS account_name FROM payment_links l JOIN accounts a ON a.id = l.account_id
     WHERE l.id = $1${opts.forShare ? ' FOR SHARE OF l' : ''}`,
    [id],
  );
  return rows[0] ?? null;
}

/** Newest first; the cursor is the bare UUID of the last item returned (ids are time-ordered). */
export async function listPaymentLinks(
  db: Queryable,
  scope: Scope,
  opts: { limit: number; cursor?: string; active?: boolean },
): Promise<{ rows: PaymentLinkRow[]; hasMore: boolean }> {
  const params: unknown[] = [scope.accountId, scope.livemode, opts.limit + 1];
  let where = 'account_id = $1 AND livemode = $2';
  if (opts.cursor) {
    params.push(opts.cursor);
    where += ` AND id < $${params.length}`;
  }
  if (opts.active !== undefined) {
    params.push(opts.active);
    where += ` AND active = $${params.length}`;
  }
  // The whole key of the list index, so a busy merchant never makes another's page walk the primary key (see events-query.ts).
  const { rows } = await db.query(`SELECT * FROM payment_links WHERE ${where} ORDER BY account_id, livemode, id DESC LIMIT $3`, params);
  return { rows: rows.slice(0, opts.limit), hasMore: rows.length > opts.limit };
}

/** Idempotent: deactivating an inactive link changes nothing and returns it as it is. */
export async function deactivatePaymentLink(tx: Queryable, scope: Scope, id: string): Promise<PaymentLinkRow | null> {
  const { rows } = await tx.query('UPDATE payment_links SET active = false WHERE id = $1 AND account_id = $2 AND livemode = $3 RETURNING *', [
    id,
    scope.accountId,
    scope.livemode,
  ]);
  return rows[0] ?? null;
}
