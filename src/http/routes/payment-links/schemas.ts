import { PAYMENT_METHODS } from '../../../temporal/contract';
import { z } from '../../zod';
import { paymentFields } from '../payments/schemas';

export const PaymentLinkCreateSchema = z
  .object({
    title: z
      .string()
      .min(1)
      .max(200)
      .refine((t) => /\S/.test(t), 'must not be blank')
      .openapi({ description: 'Shown to payers on the link page. 1–200 characters.', example: 'Yoga class, 10 sessions' }),
    ...paymentFields,
  })
  .strict()
  .openapi('PaymentLinkCreateRequest');
export type PaymentLinkCreateInput = z.infer<typeof PaymentLinkCreateSchema>;

export const PaymentLinkSchema = z
  .object({
    id: z.string().openapi({ example: 'plink_0192f0c4-8a4e-7b2c-9d1e-3f4a5b6c7d8e' }),
    object: z.literal('payment_link'),
    url: z.string().url().openapi({ description: 'The hosted page to share with payers; every visit that pays creates a new payment.' }),
    title: z.string(),
    amount: z.number().int(),
    currency: z.string(),
    active: z.boolean().openapi({ description: 'false once deactivated; the page then answers 410 and creates no payments.' }),
    livemode: z.boolean(),
    created: z.number().int(),
    methods: z.array(z.enum(PAYMENT_METHODS)),
    payout: z.object({ type: z.enum(['bank', 'wallet']), currency: z.string() }),
    metadata: z.record(z.string(), z.string()).openapi({ description: 'Copied onto every payment created from the link.' }),
  })
  .openapi('PaymentLink');

export const PaymentLinkIdParams = z.object({ id: z.string().openapi({ example: 'plink_0192f0c4-8a4e-7b2c-9d1e-3f4a5b6c7d8e' }) });
