/**
 * The processor boundary. The workflow never sees card numbers: the API tokenizes the card
 * at checkout and only the token (plus brand and last 4) travels further.
 */
export interface CardToken {
  token: string;
  brand: string;
  last4: string;
}

export interface AuthorizeRequest {
  /** Derived from the workflow id and attempt, so a retried activity never charges twice. */
  idempotencyKey: string;
  token: string;
  amount: number;
  currency: string;
  /** Set when the payer has completed the processor's challenge. */
  challengeCompleted?: boolean;
}

export type AuthorizeResult =
  | { outcome: 'approved'; reference: string }
  | { outcome: 'challenge_required' }
  | { outcome: 'declined'; code: string; declineCode?: string; message: string };

export interface PayoutRequest {
  idempotencyKey: string;
  amount: number;
  currency: string;
  destinationType: 'bank' | 'wallet';
  destination: Record<string, unknown>;
}

export type PayoutResult = { status: 'paid'; reference: string } | { status: 'failed'; code: string; message: string };

/** Thrown for a processor outage: retryable, unlike a decline. */
export class ProcessorUnavailableError extends Error {
  constructor(message = 'The processor did not answer.') {
    super(message);
    this.name = 'ProcessorUnavailableError';
  }
}

export interface Processor {
  authorize(request: AuthorizeRequest): Promise<AuthorizeResult>;
  payout(request: PayoutRequest): Promise<PayoutResult>;
}
