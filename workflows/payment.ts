import { ActivityFailure, condition, proxyActivities, setHandler, sleep, workflowInfo } from '@temporalio/workflow';
import type { Activities } from '../activities';
import {
  cancelSignal,
  challengeResponseSignal,
  expireNowSignal,
  paymentStateQuery,
  submitAttemptSignal,
  type ChallengeResponse,
  type CheckoutAttempt,
  type PaymentEventType,
  type PaymentPatch,
  type PaymentPhase,
  type PaymentStatus,
  type PaymentWorkflowInput,
} from '../src/temporal/contract';

/** Database writes: retried until they succeed (they are idempotent). */
const db = proxyActivities<Activities>({
  startToCloseTimeout: '30 seconds',
  retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '1 minute' },
});

/** Processor calls: an outage is retried a few times, then the attempt fails with processing_error. */
const processor = proxyActivities<Activities>({
  startToCloseTimeout: '30 seconds',
  retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumAttempts: 3 },
});

type AttemptOutcome = 'succeeded' | 'failed';

/**
 * One workflow per payment owns its lifecycle (decisions §3):
 * requires_action → processing → succeeded, processing → requires_action after a failed attempt,
 * requires_action → canceled (merchant, or the 24 h checkout expiry). Then settlement and payout.
 */
export async function paymentWorkflow(input: PaymentWorkflowInput): Promise<PaymentStatus> {
  const workflowId = workflowInfo().workflowId;
  let status: PaymentStatus = 'requires_action';
  let phase: PaymentPhase = 'awaiting_payer';
  let attemptId: string | null = null;
  let pending: CheckoutAttempt | null = null;
  let challenge: ChallengeResponse | null = null;
  let cancelRequested = false;
  let expireRequested = false;
  let seq = 0;
  let attemptNumber = 0;

  setHandler(submitAttemptSignal, (attempt) => {
    // Only one attempt at a time, and only while the payer is expected to act.
    if (phase === 'awaiting_payer' && pending === null) pending = attempt;
  });
  setHandler(challengeResponseSignal, (response) => {
    if (phase === 'awaiting_challenge' && response.attemptId === attemptId) challenge = response;
  });
  setHandler(cancelSignal, () => void (cancelRequested = true));
  setHandler(expireNowSignal, () => void (expireRequested = true));
  setHandler(paymentStateQuery, () => ({ status, phase, attemptId }));

  async function transition(to: PaymentStatus | null, events: PaymentEventType[], patch: PaymentPatch = {}) {
    seq += 1;
    await db.applyTransition({ paymentId: input.paymentId, seq, to, events, patch });
    if (to) status = to;
  }

  async function failAttempt(error: { code: string; decline_code?: string; message: string }): Promise<AttemptOutcome> {
    const patch: PaymentPatch = { last_payment_error: error, next_action: null };
    if (status === 'processing') await transition('requires_action', ['payment.failed', 'payment.requires_action'], patch);
    else await transition(null, ['payment.failed'], patch);
    return 'failed';
  }

  async function authorize(token: string, key: string, challengeCompleted = false) {
    try {
      return await processor.authorizePayment({ idempotencyKey: key, token, livemode: input.livemode, amount: input.amount, currency: input.currency, challengeCompleted });
    } catch (err) {
      if (err instanceof ActivityFailure) {
        return { outcome: 'declined' as const, code: 'processing_error', message: 'The payment processor could not be reached. Please try again.' };
      }
      throw err;
    }
  }

  async function runCard(attempt: Extract<CheckoutAttempt, { method: 'card' }>, n: number): Promise<AttemptOutcome> {
    await transition('processing', ['payment.processing'], {
      payment_method: { type: 'card', brand: attempt.brand, last4: attempt.last4 },
      last_payment_error: null,
      next_action: null,
    });
    let result = await authorize(attempt.token, `${workflowId}-attempt-${n}-authorize`);
    if (result.outcome === 'challenge_required') {
      await transition('requires_action', ['payment.requires_action'], { next_action: { type: 'challenge' } });
      phase = 'awaiting_challenge';
      // The challenge wait is a durable timer: 10 minutes, then authentication_timeout.
      const answered = await condition(() => challenge !== null, input.timings.challengeTimeoutMs);
      phase = 'processing_attempt';
      const response = challenge as ChallengeResponse | null;
      challenge = null;
      if (!answered || !response) {
        return failAttempt({ code: 'authentication_timeout', message: 'The authentication challenge was not completed in time.' });
      }
      if (response.result === 'fail') {
        return failAttempt({ code: 'authentication_failed', message: 'The authentication challenge failed.' });
      }
      await transition('processing', ['payment.processing'], { next_action: null });
      result = await authorize(attempt.token, `${workflowId}-attempt-${n}-authorize-challenged`, true);
    }
    if (result.outcome === 'approved') return 'succeeded';
    if (result.outcome === 'declined') {
      return failAttempt({ code: result.code, ...(result.declineCode ? { decline_code: result.declineCode } : {}), message: result.message });
    }
    return failAttempt({ code: 'authentication_required', message: 'The card requires authentication.' });
  }

  async function runWallet(attempt: Extract<CheckoutAttempt, { method: 'apple_pay' | 'google_pay' }>, n: number): Promise<AttemptOutcome> {
    await transition('processing', ['payment.processing'], { payment_method: { type: attempt.method }, last_payment_error: null, next_action: null });
    const result = await authorize(attempt.token, `${workflowId}-attempt-${n}-authorize`);
    if (result.outcome === 'approved') return 'succeeded';
    if (result.outcome === 'declined') return failAttempt({ code: result.code, message: result.message });
    return failAttempt({ code: 'wallet_declined', message: 'The wallet payment was not approved.' });
  }

  async function runTransfer(attempt: Extract<CheckoutAttempt, { method: 'usdc' | 'sepa' }>): Promise<AttemptOutcome> {
    await transition('processing', ['payment.processing'], { payment_method: { type: attempt.method }, last_payment_error: null, next_action: null });
    phase = 'awaiting_transfer';
    // Sandbox confirmation delay: a durable timer standing in for block confirmations or the SEPA cycle.
    await sleep(attempt.method === 'usdc' ? input.timings.usdcConfirmMs : input.timings.sepaConfirmMs);
    phase = 'processing_attempt';
    if (attempt.outcome === 'return') {
      return failAttempt({ code: 'transfer_returned', message: `The ${attempt.method === 'usdc' ? 'USDC' : 'SEPA'} transfer was returned.` });
    }
    return 'succeeded';
  }

  function runAttempt(attempt: CheckoutAttempt, n: number): Promise<AttemptOutcome> {
    switch (attempt.method) {
      case 'card':
        return runCard(attempt, n);
      case 'usdc':
      case 'sepa':
        return runTransfer(attempt);
      default:
        return runWallet(attempt, n);
    }
  }

  for (;;) {
    // Checkout expiry is a durable timer: whatever is left of the 24 h window.
    const remaining = Math.max(input.expiresAtMs - Date.now(), 1);
    const woke = await condition(() => pending !== null || cancelRequested || expireRequested, remaining);
    if (!woke || expireRequested || cancelRequested) {
      await transition('canceled', ['payment.canceled'], {
        cancellation_reason: cancelRequested && woke && !expireRequested ? 'requested_by_merchant' : 'expired',
        next_action: null,
      });
      phase = 'done';
      return status;
    }
    const attempt = pending as CheckoutAttempt | null;
    pending = null;
    if (!attempt) continue;
    attemptNumber += 1;
    attemptId = attempt.attemptId;
    phase = 'processing_attempt';
    const outcome = await runAttempt(attempt, attemptNumber);
    if (outcome === 'succeeded') break;
    phase = 'awaiting_payer';
  }

  await transition('succeeded', ['payment.succeeded'], { payout_status: 'pending', next_action: null });
  phase = 'settling';
  // Settlement delay (sandbox: seconds; live: T+2 days), then the payout.
  await sleep(input.timings.settlementMs);
  await db.settlePayment({ paymentId: input.paymentId, idempotencyKey: `${workflowId}-payout` });
  phase = 'done';
  return status;
}
