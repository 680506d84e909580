import { ApplicationFailure } from '@temporalio/activity';
import { getVerification, recordVerificationDecision, reviewVerification, type VerificationDecision } from '../src/domain/verification';
import type { ActivityDeps } from '.';

export function createVerificationActivities(deps: ActivityDeps) {
  return {
    /** Reads the submission and applies the automatic review rules. */
    async reviewAccountVerification(req: { verificationId: string }): Promise<VerificationDecision> {
      const v = await getVerification(deps.db.pool, req.verificationId);
      if (!v) throw ApplicationFailure.nonRetryable(`no verification ${req.verificationId}`, 'VerificationMissing');
      return reviewVerification(v.details, deps.clock());
    },

    /** Records the decision on the submission and the account in one transaction; a retry is a no-op. */
    async recordAccountVerificationDecision(req: { verificationId: string; decision: VerificationDecision }): Promise<boolean> {
      const applied = await deps.db.withTransaction((tx) => recordVerificationDecision(tx, req.verificationId, req.decision));
      deps.logger.info({ verification: req.verificationId, status: req.decision.status, applied }, 'account verification decided');
      return applied;
    },
  };
}
