import { proxyActivities, sleep } from '@temporalio/workflow';
import type { Activities } from '../activities';
import type { VerificationOutcome, VerificationWorkflowInput } from '../src/temporal/verification-contract';

const act = proxyActivities<Activities>({
  startToCloseTimeout: '30 seconds',
  retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '1 minute' },
});

/**
 * Tier 1 verification review of one submission (decisions §6). Sandbox review is automatic:
 * a short durable timer, then the documented rules decide, then one activity records the
 * decision (flipping the account to verified or rejected).
 */
export async function accountVerificationWorkflow(input: VerificationWorkflowInput): Promise<VerificationOutcome> {
  await sleep(input.reviewDelayMs);
  const decision = await act.reviewAccountVerification({ verificationId: input.verificationId });
  await act.recordAccountVerificationDecision({ verificationId: input.verificationId, decision });
  return decision;
}
