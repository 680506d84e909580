/**
 * The contract shared by the API, the worker, the workflows and the tests:
 * workflow ids, signals, queries and payload types. It imports only @temporalio/workflow,
 * so workflow code may use it.
 */
import { defineQuery, defineSignal } from '@temporalio/workflow';

export const DEFAULT_TASK_QUEUE = 'payments';

export const PAYMENT_METHODS = ['card', 'apple_pay', 'google_pay', 'usdc', 'sepa'] as const;
export type PaymentMethodType = (typeof PAYMENT_METHODS)[number];
export type PaymentStatus = 'requires_action' | 'processing' | 'succeeded' | 'canceled';

/** payment-pmt_<uuid>: the business id is the workflow id, so a second start is refused. */
export const paymentWorkflowId = (paymentUuid: string) => `payment-pmt_${paymentUuid}`;

export interface PaymentWorkflowInput {
  paymentId: string;
  livemode: boolean;
  amount: number;
  currency: string;
  expiresAtMs: number;
  timings: {
    challengeTimeoutMs: number;
    usdcConfirmMs: number;
    sepaConfirmMs: number;
    settlementMs: number;
  };
}

/** One try by the payer. Card numbers never get here: only the processor token, brand and last 4. */
export type CheckoutAttempt =
  | { attemptId: string; method: 'card'; token: string; brand: string; last4: string }
  | { attemptId: string; method: 'apple_pay' | 'google_pay'; token: string }
  | { attemptId: string; method: 'usdc' | 'sepa'; outcome: 'confirm' | 'return' };

export interface ChallengeResponse {
  attemptId: string;
  result: 'approve' | 'fail';
}

export type PaymentPhase = 'awaiting_payer' | 'processing_attempt' | 'awaiting_challenge' | 'awaiting_transfer' | 'settling' | 'done';

export interface PaymentWorkflowState {
  status: PaymentStatus;
  phase: PaymentPhase;
  /** The attempt being handled or last handled. */
  attemptId: string | null;
}

export const submitAttemptSignal = defineSignal<[CheckoutAttempt]>('submitAttempt');
export const challengeResponseSignal = defineSignal<[ChallengeResponse]>('challengeResponse');
export const cancelSignal = defineSignal('cancel');
export const expireNowSignal = defineSignal('expireNow');
export const paymentStateQuery = defineQuery<PaymentWorkflowState>('state');

/** The columns a transition may change besides status. */
export interface PaymentPatch {
  payment_method?: { type: PaymentMethodType; brand?: string; last4?: string };
  last_payment_error?: { code: string; decline_code?: string; message: string } | null;
  next_action?: { type: 'challenge' | 'transfer'; method?: string } | null;
  payout_status?: 'pending' | 'paid' | 'failed';
  cancellation_reason?: 'requested_by_merchant' | 'expired';
}

export type PaymentEventType =
  | 'payment.requires_action'
  | 'payment.processing'
  | 'payment.succeeded'
  | 'payment.failed'
  | 'payment.canceled';

export interface TransitionRequest {
  paymentId: string;
  /** Strictly increasing per workflow; a retried activity with an applied number does nothing. */
  seq: number;
  to: PaymentStatus | null;
  events: PaymentEventType[];
  patch: PaymentPatch;
}
