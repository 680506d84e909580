import { WorkflowExecutionAlreadyStartedError, type Client } from '@temporalio/client';
import { WorkflowIdReusePolicy } from '@temporalio/common';
import type { Config } from '../config';
import { publicId } from '../ids';
import { SA } from '../temporal/search-attributes';
import { SANDBOX_REVIEW_DELAY_MS, verificationWorkflowId } from '../temporal/verification-contract';
import type { VerificationRow } from './verification';

/** Starts account-verification-acct_<uuid>-<n> for a committed submission; a duplicate start is a no-op. */
export async function startVerificationWorkflow(deps: { temporal: Client; config: Config }, v: VerificationRow): Promise<void> {
  try {
    await deps.temporal.workflow.start('accountVerificationWorkflow', {
      workflowId: verificationWorkflowId(v.account_id, v.attempt),
      taskQueue: deps.config.temporal.taskQueue,
      args: [{ verificationId: v.id, accountId: v.account_id, attempt: v.attempt, reviewDelayMs: SANDBOX_REVIEW_DELAY_MS }],
      workflowIdReusePolicy: WorkflowIdReusePolicy.REJECT_DUPLICATE,
      ...(deps.config.temporal.searchAttributes ? { typedSearchAttributes: [{ key: SA.accountId, value: publicId('account', v.account_id) }] } : {}),
    });
  } catch (err) {
    if (!(err instanceof WorkflowExecutionAlreadyStartedError)) throw err;
  }
}
