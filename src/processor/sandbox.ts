import crypto from 'node:crypto';
import type { Queryable } from '../db/pool';
import { cardBrand } from './cards';
import { ProcessorUnavailableError, type AuthorizeRequest, type AuthorizeResult, type CardToken, type PayoutRequest, type PayoutResult, type Processor } from './types';

/** The sandbox test cards of decisions §3, by the behaviour they trigger. */
export const SANDBOX_CARDS: Record<string, SandboxBehaviour> = {
  '4242424242424242': 'success',
  '4000002760003184': 'challenge',
  '4000000000000002': 'generic_decline',
  '4000000000009995': 'insufficient_funds',
  '4000000000000069': 'expired_card',
  '4000000000000127': 'incorrect_cvc',
  '4000000000000119': 'processing_error',
};
type SandboxBehaviour = 'success' | 'challenge' | 'generic_decline' | 'insufficient_funds' | 'expired_card' | 'incorrect_cvc' | 'processing_error' | 'wallet_approve' | 'wallet_decline';

/** A sandbox bank account whose payouts fail (account closed), for testing payout.failed. */
export const SANDBOX_FAILING_IBAN = 'GB82WEST12345698765432';

const DECLINES: Partial<Record<SandboxBehaviour, Extract<AuthorizeResult, { outcome: 'declined' }>>> = {
  generic_decline: { outcome: 'declined', code: 'card_declined', declineCode: 'generic_decline', message: 'Your card was declined.' },
  insufficient_funds: { outcome: 'declined', code: 'card_declined', declineCode: 'insufficient_funds', message: 'Your card has insufficient funds.' },
  expired_card: { outcome: 'declined', code: 'expired_card', message: 'Your card has expired.' },
  incorrect_cvc: { outcome: 'declined', code: 'incorrect_cvc', message: "Your card's security code is incorrect." },
  wallet_decline: { outcome: 'declined', code: 'wallet_declined', message: 'The payment was declined in the wallet.' },
};

/** Tokens name the behaviour, never the number: tok_sandbox_<behaviour>_<random>. */
export function tokenizeSandboxCard(number: string): CardToken {
  const behaviour = SANDBOX_CARDS[number] ?? 'success';
  return { token: `tok_sandbox_${behaviour}_${crypto.randomBytes(6).toString('hex')}`, brand: cardBrand(number), last4: number.slice(-4) };
}

export function sandboxWalletToken(approve: boolean): string {
  return `tok_sandbox_wallet_${approve ? 'approve' : 'decline'}_${crypto.randomBytes(6).toString('hex')}`;
}

function behaviourOf(token: string): SandboxBehaviour {
  const m = /^tok_sandbox_([a-z_]+)_[0-9a-f]+$/.exec(token);
  if (!m) throw new Error('Unknown sandbox token');
  return m[1] as SandboxBehaviour;
}

/**
 * The sandbox processor. It keeps a ledger keyed by idempotency key, as a real processor does:
 * a repeated request returns the first answer instead of charging again.
 */
export function createSandboxProcessor(db: Queryable): Processor {
  async function once<T>(key: string, operation: string, compute: () => T | Promise<T>): Promise<T> {
    const { rows } = await db.query(
      `INSERT INTO sandbox_processor_requests (idempotency_key, operation) VALUES ($1, $2)
       ON CONFLICT (idempotency_key) DO UPDATE SET calls = sandbox_processor_requests.calls + 1
       RETURNING response`,
      [key, operation],
    );
    if (rows[0].response) return rows[0].response as T;
    const result = await compute();
    await db.query('UPDATE sandbox_processor_requests SET response = $2 WHERE idempotency_key = $1', [key, result]);
    return result;
  }

  return {
    authorize(req: AuthorizeRequest) {
      return once(req.idempotencyKey, 'authorize', (): AuthorizeResult => {
        const behaviour = behaviourOf(req.token);
        if (behaviour === 'processing_error') throw new ProcessorUnavailableError('Sandbox processor error (test card 4000 0000 0000 0119).');
        if (behaviour === 'challenge' && !req.challengeCompleted) return { outcome: 'challenge_required' };
        const decline = DECLINES[behaviour];
        if (decline) return decline;
        return { outcome: 'approved', reference: `auth_${crypto.randomBytes(8).toString('hex')}` };
      });
    },
    payout(req: PayoutRequest) {
      return once(req.idempotencyKey, 'payout', (): PayoutResult => {
        if (req.destinationType === 'bank' && req.destination.iban === SANDBOX_FAILING_IBAN) {
          return { status: 'failed', code: 'account_closed', message: 'The destination bank account is closed.' };
        }
        return { status: 'paid', reference: `tr_${crypto.randomBytes(8).toString('hex')}` };
      });
    },
  };
}

/** No live processor is configured in this build: live attempts fail cleanly instead of pretending. */
export const unconfiguredLiveProcessor: Processor = {
  async authorize() {
    return { outcome: 'declined', code: 'processing_error', message: 'No live payment processor is configured for this service.' };
  },
  async payout() {
    return { status: 'failed', code: 'processing_error', message: 'No live payout rail is configured for this service.' };
  },
};
