import { getAccount, serializeAccount } from '../../../domain/accounts';
import { submitVerification, VerificationStateError, VerificationSubmitSchema, type VerificationSubmitInput } from '../../../domain/verification';
import { startVerificationWorkflow } from '../../../domain/verification-start';
import { ApiError, errors } from '../../errors';
import { defineRoute } from '../../route';
import { z } from '../../zod';

export const AccountSchema = z
  .object({
    id: z.string().openapi({ example: 'acct_0192f0c4-8a4e-7b2c-9d1e-3f4a5b6c7d8e' }),
    object: z.literal('account'),
    name: z.string(),
    api_version: z.string(),
    verification: z.object({
      status: z.enum(['not_started', 'pending', 'verified', 'rejected']),
      rejection_reason: z.string().nullable(),
    }),
    live_enabled: z.boolean(),
    created: z.number().int(),
  })
  .openapi('Account');

export const accountRoutes = [
  defineRoute({
    method: 'get',
    path: '/v1/account',
    operationId: 'getAccount',
    summary: 'Retrieve the account the API key belongs to',
    tag: 'Account',
    responses: { 200: { description: 'The account.', schema: AccountSchema } },
    async handler({ auth, services }) {
      const account = await getAccount(services.db.pool, auth.accountId);
      if (!account) throw errors.notFound('account');
      return { body: serializeAccount(account) };
    },
  }),
  defineRoute<VerificationSubmitInput>({
    method: 'post',
    path: '/v1/account/verification',
    operationId: 'submitAccountVerification',
    summary: 'Submit Tier 1 verification details',
    tag: 'Account',
    body: VerificationSubmitSchema,
    responses: {
      200: { description: 'The account, with verification status pending; a verification workflow reviews the details.', schema: AccountSchema },
      409: { description: 'A review is already pending, or the account is already verified (invalid_request_error, account_unexpected_state).' },
    },
    async handler({ body, auth, services, db, afterCommit }) {
      try {
        const { account, verification } = await submitVerification(db, auth.accountId, body);
        afterCommit(() => startVerificationWorkflow(services, verification));
        return { body: serializeAccount(account) };
      } catch (err) {
        if (err instanceof VerificationStateError) {
          throw new ApiError(409, 'invalid_request_error', 'account_unexpected_state', `Verification cannot be submitted now: ${err.message}.`);
        }
        throw err;
      }
    },
  }),
];
