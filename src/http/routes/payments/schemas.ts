import { BANK_PAYOUT_CURRENCIES, PRESENTMENT_CURRENCIES, WALLET_PAYOUT_CURRENCIES } from '../../../domain/money';
import { PAYMENT_METHODS } from '../../../temporal/contract';
import { z } from '../../zod';

const Metadata = z
  .record(z.string().min(1).max(40), z.string().max(500))
  .refine((m) => Object.keys(m).length <= 50, 'at most 50 keys')
  .openapi({ description: 'Up to 50 keys of at most 40 characters, string values of at most 500.' });

/**
 * The payment settings a request may carry, shared with payment links (which create payments
 * with exactly these settings), so both validate and document them the same way.
 */
export const paymentFields = {
  amount: z.number().int().min(1).max(99_999_999).openapi({ description: 'In the minor unit of the currency (cents for USD, yen for JPY).', example: 2000 }),
  currency: z.enum(PRESENTMENT_CURRENCIES).openapi({ description: 'Upper-case ISO 4217 code.', example: 'EUR' }),
  payout: z
    .object({
      type: z.enum(['bank', 'wallet']),
      currency: z.enum([...BANK_PAYOUT_CURRENCIES, ...WALLET_PAYOUT_CURRENCIES]),
    })
    .strict()
    .refine((p) => (p.type === 'wallet') === (p.currency === 'USDC'), { message: 'bank payouts take a fiat currency; wallet payouts take USDC', path: ['currency'] })
    .optional()
    .openapi({ description: 'Where the funds go at settlement. Default: bank, in the payment currency.' }),
  methods: z
    .array(z.enum(PAYMENT_METHODS))
    .min(1)
    .refine((m) => new Set(m).size === m.length, 'methods must not repeat')
    .optional()
    .openapi({ description: 'Methods offered at checkout. Default: all.' }),
  metadata: Metadata.optional(),
};

export const PaymentCreateSchema = z
  .object(paymentFields)
  .strict()
  .openapi('PaymentCreateRequest');
export type PaymentCreateInput = z.infer<typeof PaymentCreateSchema>;

/** The defaults of decisions §3 (bank payout in the payment currency, every method), applied once at creation. */
export function resolvePaymentSettings(input: PaymentCreateInput) {
  return {
    amount: input.amount,
    currency: input.currency,
    payoutType: input.payout?.type ?? 'bank',
    payoutCurrency: input.payout?.currency ?? input.currency,
    methods: input.methods ?? [...PAYMENT_METHODS],
    metadata: input.metadata ?? {},
  };
}

export const PaymentSchema = z
  .object({
    id: z.string().openapi({ example: 'pmt_0192f0c4-8a4e-7b2c-9d1e-3f4a5b6c7d8e' }),
    object: z.literal('payment'),
    amount: z.number().int(),
    currency: z.string(),
    status: z.enum(['requires_action', 'processing', 'succeeded', 'canceled']),
    checkout_url: z.string().url(),
    livemode: z.boolean(),
    created: z.number().int(),
    expires_at: z.number().int(),
    methods: z.array(z.enum(PAYMENT_METHODS)),
    payout: z.object({ type: z.enum(['bank', 'wallet']), currency: z.string() }),
    metadata: z.record(z.string(), z.string()),
    payment_method: z.object({ type: z.enum(PAYMENT_METHODS), brand: z.string().optional(), last4: z.string().optional() }).nullable(),
    last_payment_error: z.object({ code: z.string(), decline_code: z.string().optional(), message: z.string() }).nullable(),
    next_action: z.object({ type: z.enum(['challenge', 'transfer']) }).nullable(),
    payout_status: z.enum(['pending', 'paid', 'failed']).nullable(),
    payment_link: z.string().nullable(),
    cancellation_reason: z.enum(['requested_by_merchant', 'expired']).nullable(),
  })
  .openapi('Payment');

export const PaymentIdParams = z.object({ id: z.string().openapi({ example: 'pmt_0192f0c4-8a4e-7b2c-9d1e-3f4a5b6c7d8e' }) });

export const TestCheckoutSchema = z
  .discriminatedUnion('method', [
    z.object({ method: z.literal('card'), card_number: z.string().min(1).max(32), challenge: z.enum(['approve', 'fail']).optional() }).strict(),
    z.object({ method: z.enum(['apple_pay', 'google_pay']), wallet: z.enum(['approve', 'decline']).optional() }).strict(),
    z.object({ method: z.enum(['usdc', 'sepa']), outcome: z.enum(['confirm', 'return']).optional() }).strict(),
  ])
  .openapi('TestCheckoutRequest');
