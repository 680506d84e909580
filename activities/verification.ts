import { ApplicationFailure } from '@temporalio/activity';
import { getVerification, recordVerificationDecision, reviewVerification, type VerificationDecision, type VerificationRow } from '../src/domain/verification';
import { startVerificationWorkflow } from '../src/domain/verification-start';
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

    /**
     * Maintenance: (re)starts the workflow of submissions still pending after `olderThanSeconds`, in case
     * the API crashed or Temporal was down between the commit and the start. A start of a workflow id
     * that already ran is refused by Temporal and is a no-op here.
     */
    async startStalledVerifications(olderThanSeconds = 30): Promise<number> {
      const { rows } = await deps.db.query<VerificationRow>(
        `SELECT * FROM account_verifications WHERE status = 'pending' AND created_at < now() - $1 * interval '1 second' ORDER BY created_at LIMIT 100`,
        [olderThanSeconds],
      );
      for (const v of rows) await startVerificationWorkflow(deps, v);
      return rows.length;
    },
  };
}
