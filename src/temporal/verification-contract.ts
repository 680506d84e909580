/**
 * The account verification workflow's contract, shared by the API, the worker and the tests.
 * Values only from plain TypeScript, so workflow code may import it.
 */

/** account-verification-acct_<uuid>-<n>: one workflow per submission, n counting the account's submissions. */
export const verificationWorkflowId = (accountUuid: string, attempt: number) => `account-verification-acct_${accountUuid}-${attempt}`;

/** Sandbox review runs after this short durable timer. */
export const SANDBOX_REVIEW_DELAY_MS = 2000;

export interface VerificationWorkflowInput {
  verificationId: string;
  accountId: string;
  attempt: number;
  reviewDelayMs: number;
}

export type VerificationOutcome = { status: 'verified' } | { status: 'rejected'; reason: string };
