import crypto from 'node:crypto';
import type { WorkflowHandle } from '@temporalio/client';
import type { Queryable } from '../db/pool';
import { insertEvents, undispatchedIds } from '../domain/events';
import { getPaymentById, insertPayment, paymentSnapshot, type NewPayment, type PaymentRow } from '../domain/payments';
import { ApiError, errors } from '../http/errors';
import type { AppServices } from '../http/context';
import { luhnValid, normaliseCardNumber } from '../processor/cards';
import { sandboxWalletToken, tokenizeSandboxCard } from '../processor/sandbox';
import {
  cancelSignal,
  challengeResponseSignal,
  expireNowSignal,
  paymentStateQuery,
  paymentWorkflowId,
  submitAttemptSignal,
  type CheckoutAttempt,
  type PaymentMethodType,
  type PaymentWorkflowState,
} from '../temporal/contract';
import { dispatchDeps, dispatchEvents } from '../webhooks/dispatch';
import { startPaymentWorkflow } from './workflow-start';

/**
 * Payment operations shared by the REST API, the sandbox test helpers and the hosted checkout
 * page, so that all three drive exactly the same workflow path.
 */

/** Stores the payment with payment.created and payment.requires_action, then starts its workflow after commit. */
export async function createPayment(
  services: AppServices,
  tx: Queryable,
  afterCommit: (fn: () => Promise<void>) => void,
  input: NewPayment,
): Promise<PaymentRow> {
  const row = await insertPayment(tx, input);
  const snapshot = paymentSnapshot(row, services.config.publicBaseUrl);
  const events = await insertEvents(tx, { accountId: row.account_id, livemode: row.livemode, types: ['payment.created', 'payment.requires_action'], object: snapshot });
  // If this process dies before these run, the maintenance sweeps start the workflow
  // (workflow_started_at IS NULL) and the deliveries (dispatched_at IS NULL).
  // The answer waits for the start (the checkout signals the workflow), not for its mark.
  afterCommit(async () => {
    await startPaymentWorkflow(services, row);
  });
  afterCommit(() => dispatchEvents(dispatchDeps(services), undispatchedIds(events)));
  return row;
}

export type CheckoutInput =
  | { method: 'card'; card_number: string; challenge?: 'approve' | 'fail' }
  | { method: 'apple_pay' | 'google_pay'; wallet?: 'approve' | 'decline' }
  | { method: 'usdc' | 'sepa'; outcome?: 'confirm' | 'return' };

function handleFor(services: AppServices, row: PaymentRow): WorkflowHandle {
  return services.temporal.workflow.getHandle(paymentWorkflowId(row.id));
}

/** Polls the workflow's state query until the predicate holds (or the wait runs out) and returns the stored payment. */
async function waitFor(services: AppServices, row: PaymentRow, done: (s: PaymentWorkflowState) => boolean, timeoutMs = 15_000): Promise<PaymentRow> {
  const handle = handleFor(services, row);
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const state = await handle.query(paymentStateQuery).catch(() => null);
    if ((state && done(state)) || Date.now() > deadline) break;
    await new Promise((r) => setTimeout(r, 50));
  }
  return (await getPaymentById(services.db.pool, row.id))!;
}

function assertAwaitingPayer(row: PaymentRow): void {
  if (row.status !== 'requires_action' || row.next_action?.type === 'challenge') {
    throw errors.unexpectedState(
      row.next_action?.type === 'challenge'
        ? 'This payment is waiting for its authentication challenge.'
        : `This payment is ${row.status}; a new attempt needs status requires_action.`,
    );
  }
}

/** Turns payer input into an attempt. The card number stops here: only a token, brand and last 4 go on. */
export function toAttempt(row: PaymentRow, input: CheckoutInput): CheckoutAttempt {
  if (!row.methods.includes(input.method as PaymentMethodType)) {
    throw errors.parameterInvalid('method', `This payment does not accept ${input.method}. Allowed: ${row.methods.join(', ')}.`);
  }
  const attemptId = crypto.randomUUID();
  switch (input.method) {
    case 'card': {
      const number = normaliseCardNumber(input.card_number);
      if (!luhnValid(number)) throw new ApiError(400, 'invalid_request_error', 'incorrect_number', 'Your card number is incorrect.', 'card_number');
      const card = tokenizeSandboxCard(number);
      return { attemptId, method: 'card', token: card.token, brand: card.brand, last4: card.last4 };
    }
    case 'apple_pay':
    case 'google_pay':
      return { attemptId, method: input.method, token: sandboxWalletToken(input.wallet !== 'decline') };
    default:
      return { attemptId, method: input.method, outcome: input.outcome ?? 'confirm' };
  }
}

/** Submits one attempt and waits until the workflow has handled it (or is waiting on the payer or a transfer). */
export async function submitAttempt(services: AppServices, row: PaymentRow, attempt: CheckoutAttempt): Promise<PaymentRow> {
  assertAwaitingPayer(row);
  await handleFor(services, row).signal(submitAttemptSignal, attempt);
  return waitFor(services, row, (s) => s.attemptId === attempt.attemptId && s.phase !== 'processing_attempt');
}

export async function respondToChallenge(services: AppServices, row: PaymentRow, result: 'approve' | 'fail'): Promise<PaymentRow> {
  if (row.status !== 'requires_action' || row.next_action?.type !== 'challenge') {
    throw errors.unexpectedState('This payment has no authentication challenge waiting.');
  }
  const state = await handleFor(services, row).query(paymentStateQuery);
  if (state.phase !== 'awaiting_challenge' || !state.attemptId) throw errors.unexpectedState('This payment has no authentication challenge waiting.');
  await handleFor(services, row).signal(challengeResponseSignal, { attemptId: state.attemptId, result });
  return waitFor(services, row, (s) => s.phase !== 'awaiting_challenge' && s.phase !== 'processing_attempt');
}

/** The sandbox helper: one call drives a whole checkout, challenge included. */
export async function driveCheckout(services: AppServices, row: PaymentRow, input: CheckoutInput): Promise<PaymentRow> {
  let current = await submitAttempt(services, row, toAttempt(row, input));
  if (input.method === 'card' && input.challenge && current.next_action?.type === 'challenge') {
    current = await respondToChallenge(services, current, input.challenge);
  }
  return current;
}

/** Merchant cancel: only from requires_action; the workflow decides, and the answer reflects what it did. */
export async function cancelPayment(services: AppServices, row: PaymentRow): Promise<PaymentRow> {
  if (row.status !== 'requires_action') {
    throw errors.unexpectedState(`This payment is ${row.status} and can no longer be canceled.`);
  }
  await handleFor(services, row).signal(cancelSignal);
  const after = await waitFor(services, row, (s) => s.status === 'canceled' || s.phase === 'done' || s.phase === 'settling');
  if (after.status !== 'canceled') throw errors.unexpectedState(`This payment is ${after.status} and can no longer be canceled.`);
  return after;
}

export async function expireNow(services: AppServices, row: PaymentRow): Promise<PaymentRow> {
  if (row.status !== 'requires_action') throw errors.unexpectedState(`This payment is ${row.status} and can no longer expire.`);
  await handleFor(services, row).signal(expireNowSignal);
  return waitFor(services, row, (s) => s.status === 'canceled' || s.phase === 'done');
}
