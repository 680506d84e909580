import type { Queryable } from '../db/pool';
import { z } from '../http/zod';
import { newUuid } from '../ids';
import type { AccountRow } from './accounts';

/** ISO 13616 IBAN: country, check digits, up to 30 alphanumerics; valid when the mod-97 remainder is 1. */
export function normalizeIban(value: string): string {
  return value.replace(/\s+/g, '').toUpperCase();
}

export function isValidIban(value: string): boolean {
  const iban = normalizeIban(value);
  if (!/^[A-Z]{2}\d{2}[A-Z0-9]{11,30}$/.test(iban)) return false;
  const rearranged = iban.slice(4) + iban.slice(0, 4);
  let remainder = 0;
  for (const ch of rearranged) {
    const digits = /\d/.test(ch) ? ch : String(ch.charCodeAt(0) - 55);
    for (const d of digits) remainder = (remainder * 10 + Number(d)) % 97;
  }
  return remainder === 1;
}

const isRealDate = (s: string) => {
  const d = new Date(`${s}T00:00:00Z`);
  return !Number.isNaN(d.getTime()) && d.toISOString().slice(0, 10) === s;
};

/** Tier 1 verification details (decisions §6), shared by POST /v1/account/verification and the dashboard form. */
export const VerificationSubmitSchema = z
  .object({
    business: z
      .object({
        legal_name: z.string().trim().min(2).max(200).openapi({ example: 'Acme Trading Ltd' }),
        country: z.string().regex(/^[A-Z]{2}$/, 'must be an upper-case ISO 3166-1 alpha-2 code').openapi({ example: 'GB' }),
        registration_number: z.string().trim().min(2).max(50).openapi({ example: '12345678' }),
      })
      .strict(),
    representative: z
      .object({
        name: z.string().trim().min(2).max(200).openapi({ example: 'Ada Lovelace' }),
        date_of_birth: z
          .string()
          .regex(/^\d{4}-\d{2}-\d{2}$/, 'must be a date as YYYY-MM-DD')
          .refine(isRealDate, 'must be a real date')
          .openapi({ example: '1985-12-10' }),
      })
      .strict(),
    payout_bank: z
      .object({
        iban: z
          .string()
          .transform(normalizeIban)
          .refine(isValidIban, 'must be a valid IBAN (mod-97 checksum)')
          .openapi({ example: 'GB82WEST12345698765432' }),
        holder: z.string().trim().min(2).max(200).openapi({ example: 'Acme Trading Ltd' }),
      })
      .strict(),
    payout_wallet: z
      .object({
        address: z.string().regex(/^0x[0-9a-fA-F]{40}$/, 'must be 0x followed by 40 hexadecimal characters').openapi({ example: '0x52908400098527886E0F7030069857D2E4169EE7' }),
      })
      .strict(),
  })
  .strict()
  .openapi('AccountVerificationSubmit');
export type VerificationSubmitInput = z.infer<typeof VerificationSubmitSchema>;

export type VerificationDecision = { status: 'verified' } | { status: 'rejected'; reason: string };

/**
 * The automatic (sandbox) review. Documented test values that fail:
 * a legal name containing "REJECT", and the representative date of birth 1900-01-01.
 * A representative under 18 also fails, as a real review would.
 */
export function reviewVerification(details: VerificationSubmitInput, now: Date): VerificationDecision {
  if (/REJECT/i.test(details.business.legal_name)) {
    return { status: 'rejected', reason: 'The business could not be verified from its registration details.' };
  }
  if (details.representative.date_of_birth === '1900-01-01') {
    return { status: 'rejected', reason: 'The representative’s identity could not be verified.' };
  }
  const dob = new Date(`${details.representative.date_of_birth}T00:00:00Z`);
  const adult = new Date(Date.UTC(dob.getUTCFullYear() + 18, dob.getUTCMonth(), dob.getUTCDate()));
  if (adult.getTime() > now.getTime()) {
    return { status: 'rejected', reason: 'The representative must be at least 18 years old.' };
  }
  return { status: 'verified' };
}

export interface VerificationRow {
  id: string;
  account_id: string;
  attempt: number;
  details: VerificationSubmitInput;
  status: 'pending' | 'verified' | 'rejected';
  rejection_reason: string | null;
  created_at: Date;
  decided_at: Date | null;
}

export class VerificationStateError extends Error {}

/**
 * Records a submission and sets the account to pending, in the caller's transaction.
 * Refused while a review is pending or once verified. The account row is locked so two
 * submissions cannot both get the same attempt number.
 */
export async function submitVerification(tx: Queryable, accountId: string, details: VerificationSubmitInput): Promise<{ account: AccountRow; verification: VerificationRow }> {
  const { rows: locked } = await tx.query('SELECT verification_status FROM accounts WHERE id = $1 FOR UPDATE', [accountId]);
  if (!locked[0]) throw new VerificationStateError('no such account');
  if (locked[0].verification_status === 'pending' || locked[0].verification_status === 'verified') {
    throw new VerificationStateError(`verification is ${locked[0].verification_status}`);
  }
  const { rows } = await tx.query(
    `INSERT INTO account_verifications (id, account_id, attempt, details, status)
     VALUES ($1, $2, (SELECT COALESCE(max(attempt), 0) + 1 FROM account_verifications WHERE account_id = $2), $3, 'pending') RETURNING *`,
    [newUuid(), accountId, details],
  );
  const { rows: accounts } = await tx.query(
    `UPDATE accounts SET verification_status = 'pending', verification_rejection_reason = NULL WHERE id = $1 RETURNING *`,
    [accountId],
  );
  return { account: accounts[0], verification: rows[0] };
}

export async function getVerification(db: Queryable, id: string): Promise<VerificationRow | null> {
  const { rows } = await db.query('SELECT * FROM account_verifications WHERE id = $1', [id]);
  return rows[0] ?? null;
}

export async function latestVerification(db: Queryable, accountId: string): Promise<VerificationRow | null> {
  const { rows } = await db.query('SELECT * FROM account_verifications WHERE account_id = $1 ORDER BY attempt DESC LIMIT 1', [accountId]);
  return rows[0] ?? null;
}

/**
 * Applies a review decision once: the submission and the account change together. Passing stores
 * the payout destinations, which makes live keys work (the live-key gate reads verification_status).
 */
export async function recordVerificationDecision(tx: Queryable, verificationId: string, decision: VerificationDecision): Promise<boolean> {
  const { rows } = await tx.query(
    `UPDATE account_verifications SET status = $2, rejection_reason = $3, decided_at = now()
      WHERE id = $1 AND status = 'pending' RETURNING *`,
    [verificationId, decision.status, decision.status === 'rejected' ? decision.reason : null],
  );
  const v: VerificationRow | undefined = rows[0];
  if (!v) return false;
  if (decision.status === 'verified') {
    await tx.query(
      `UPDATE accounts SET verification_status = 'verified', verification_rejection_reason = NULL, payout_bank = $2, payout_wallet = $3 WHERE id = $1`,
      [v.account_id, { iban: v.details.payout_bank.iban, holder: v.details.payout_bank.holder }, { address: v.details.payout_wallet.address, network: 'ethereum' }],
    );
  } else {
    await tx.query(`UPDATE accounts SET verification_status = 'rejected', verification_rejection_reason = $2 WHERE id = $1`, [v.account_id, decision.reason]);
  }
  return true;
}
