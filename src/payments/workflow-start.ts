import { WorkflowExecutionAlreadyStartedError, type Client } from '@temporalio/client';
import { WorkflowIdReusePolicy } from '@temporalio/common';
import type { Config } from '../config';
import type { Db, Queryable } from '../db/pool';
import { markWorkflowStarted, type PaymentRow } from '../domain/payments';
import { publicId } from '../ids';
import { paymentWorkflowId, type PaymentWorkflowInput } from '../temporal/contract';
import { SA } from '../temporal/search-attributes';

const CHALLENGE_TIMEOUT_MS = 10 * 60 * 1000;
const LIVE_SETTLEMENT_MS = 2 * 24 * 3600 * 1000;

/** Everything the workflow needs, derived from the stored payment and the configuration. */
export function paymentWorkflowInput(row: PaymentRow, config: Config): PaymentWorkflowInput {
  return {
    paymentId: row.id,
    livemode: row.livemode,
    amount: row.amount,
    currency: row.currency,
    expiresAtMs: row.expires_at.getTime(),
    timings: {
      challengeTimeoutMs: CHALLENGE_TIMEOUT_MS,
      usdcConfirmMs: config.sandbox.usdcConfirmSeconds * 1000,
      sepaConfirmMs: config.sandbox.sepaConfirmSeconds * 1000,
      settlementMs: row.livemode ? LIVE_SETTLEMENT_MS : config.sandbox.settlementSeconds * 1000,
    },
  };
}

/**
 * Starts payment-pmt_<uuid>. The id can be used once only (REJECT_DUPLICATE), so the API,
 * a retry and the sweep may all try: one start wins and the others are a normal no-op.
 * Resolves once the workflow exists; `marked` resolves once workflow_started_at is written.
 */
export async function startPaymentWorkflow(
  deps: { temporal: Client; config: Config; db: Db | { pool: Queryable } },
  row: PaymentRow,
): Promise<{ marked: Promise<void> }> {
  try {
    await deps.temporal.workflow.start('paymentWorkflow', {
      workflowId: paymentWorkflowId(row.id),
      taskQueue: deps.config.temporal.taskQueue,
      args: [paymentWorkflowInput(row, deps.config)],
      workflowIdReusePolicy: WorkflowIdReusePolicy.REJECT_DUPLICATE,
      ...(!deps.config.temporal.searchAttributes
        ? {}
        : {
            typedSearchAttributes: [
              { key: SA.paymentId, value: publicId('payment', row.id) },
              { key: SA.accountId, value: publicId('account', row.account_id) },
              { key: SA.livemode, value: row.livemode },
            ],
          }),
    });
  } catch (err) {
    if (!(err instanceof WorkflowExecutionAlreadyStartedError)) throw err;
  }
  return { marked: markWorkflowStarted(deps.db.pool, row.id) };
}
