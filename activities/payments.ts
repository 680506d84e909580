import { ApplicationFailure } from '@temporalio/activity';
import { getAccount } from '../src/domain/accounts';
import { insertEvent, insertEvents, undispatchedIds } from '../src/domain/events';
import { convert, FX_TABLE_NAME, type Currency } from '../src/domain/money';
import { applyPaymentTransition, getPaymentById, paymentSnapshot } from '../src/domain/payments';
import { startPaymentWorkflow } from '../src/payments/workflow-start';
import { createSandboxProcessor, unconfiguredLiveProcessor } from '../src/processor/sandbox';
import { ProcessorUnavailableError, type AuthorizeResult } from '../src/processor/types';
import type { TransitionRequest } from '../src/temporal/contract';
import { newUuid } from '../src/ids';
import { dispatchDeps, dispatchEvents } from '../src/webhooks/dispatch';
import type { ActivityDeps } from '.';

export function createPaymentActivities(deps: ActivityDeps) {
  const processorFor = (livemode: boolean) => (livemode ? unconfiguredLiveProcessor : createSandboxProcessor(deps.db.pool));

  /** Starts webhook deliveries for committed events. A failure is left to the sweep, never undoes the commit. */
  async function dispatchCommitted(eventIds: string[]): Promise<void> {
    try {
      await dispatchEvents(dispatchDeps(deps), eventIds);
    } catch (err) {
      deps.logger.warn({ err: (err as Error).message, events: eventIds.length }, 'event dispatch failed; the sweep will retry it');
    }
  }

  return {
    /** Writes one status change and its events in one transaction; a retry of an applied step is a no-op. */
    async applyTransition(req: TransitionRequest): Promise<string[]> {
      const events = await deps.db.withTransaction(async (tx) => {
        const row = await applyPaymentTransition(tx, req);
        if (!row) return [];
        const snapshot = paymentSnapshot(row, deps.config.publicBaseUrl);
        return insertEvents(tx, { accountId: row.account_id, livemode: row.livemode, types: req.events, object: snapshot });
      });
      await dispatchCommitted(undispatchedIds(events));
      return events.map((e) => e.id);
    },

    /** Calls the processor. Declines are results, not errors; an outage is retryable. */
    async authorizePayment(req: {
      idempotencyKey: string;
      token: string;
      livemode: boolean;
      amount: number;
      currency: string;
      challengeCompleted?: boolean;
    }): Promise<AuthorizeResult> {
      try {
        return await processorFor(req.livemode).authorize(req);
      } catch (err) {
        if (err instanceof ProcessorUnavailableError) throw ApplicationFailure.retryable(err.message, 'ProcessorUnavailable');
        throw err;
      }
    },

    /**
     * Converts to the payout currency, pays out to the account's bank or wallet destination and
     * records payout.paid or payout.failed. The payout row is unique per payment and the processor
     * call carries an idempotency key, so a retried activity pays out once.
     */
    async settlePayment(req: { paymentId: string; idempotencyKey: string }): Promise<'paid' | 'failed'> {
      const payment = await getPaymentById(deps.db.pool, req.paymentId);
      if (!payment) throw ApplicationFailure.nonRetryable(`payment ${req.paymentId} not found`, 'PaymentMissing');
      const account = await getAccount(deps.db.pool, payment.account_id);
      const destination = payment.payout_type === 'bank' ? account?.payout_bank : account?.payout_wallet;
      const fx = convert(payment.amount, payment.currency as Currency, payment.payout_currency as Currency);
      await deps.db.query(
        `INSERT INTO payouts (id, payment_id, account_id, livemode, amount, currency, source_amount, source_currency,
                              fx_rate, destination_type, destination, status, created_at)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, 'pending', now())
         ON CONFLICT (payment_id) DO NOTHING`,
        [newUuid(), payment.id, payment.account_id, payment.livemode, fx.amount, payment.payout_currency, payment.amount, payment.currency, fx.rate, payment.payout_type, destination ?? {}],
      );
      const { rows } = await deps.db.query('SELECT * FROM payouts WHERE payment_id = $1', [payment.id]);
      const payout = rows[0];
      if (payout.status !== 'pending') return payout.status;

      const result = destination
        ? await processorFor(payment.livemode).payout({
            idempotencyKey: req.idempotencyKey,
            amount: payout.amount,
            currency: payout.currency,
            destinationType: payment.payout_type,
            destination,
          })
        : { status: 'failed' as const, code: 'no_destination', message: `The account has no ${payment.payout_type} payout destination.` };

      const outcome = await deps.db.withTransaction(async (tx) => {
        const updated = await tx.query(
          `UPDATE payouts SET status = $2, failure_code = $3, arrived_at = CASE WHEN $2 = 'paid' THEN now() END
           WHERE id = $1 AND status = 'pending' RETURNING *`,
          [payout.id, result.status, result.status === 'failed' ? result.code : null],
        );
        const p = updated.rows[0];
        if (!p) return { status: result.status, events: [] };
        await tx.query('UPDATE payments SET payout_status = $2 WHERE id = $1', [payment.id, result.status]);
        const event = await insertEvent(tx, {
          accountId: payment.account_id,
          livemode: payment.livemode,
          type: result.status === 'paid' ? 'payout.paid' : 'payout.failed',
          object: {
            id: p.id,
            object: 'payout',
            amount: p.amount,
            currency: p.currency.toLowerCase(),
            status: p.status,
            payment: payment.id,
            fx_rate: p.fx_rate,
            fx_table: FX_TABLE_NAME,
            source_amount: p.source_amount,
            source_currency: p.source_currency.toLowerCase(),
            destination_type: p.destination_type,
            failure_code: p.failure_code,
            arrived_at: p.arrived_at ? Math.floor(p.arrived_at.getTime() / 1000) : null,
          },
        });
        return { status: result.status, events: [event] };
      });
      await dispatchCommitted(undispatchedIds(outcome.events));
      return outcome.status;
    },

    /** Sweep: starts the workflow of any payment a crash left without one (stored, but never started). */
    async startUnstartedPayments(olderThanSeconds = 30): Promise<number> {
      const { rows } = await deps.db.query(
        `SELECT * FROM payments WHERE workflow_started_at IS NULL AND created_at < now() - make_interval(secs => $1)
         ORDER BY id LIMIT 500`,
        [olderThanSeconds],
      );
      const marks: Array<Promise<void>> = [];
      for (const row of rows) marks.push((await startPaymentWorkflow(deps, row)).marked);
      await Promise.all(marks);
      return rows.length;
    },
  };
}
