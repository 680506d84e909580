import crypto from 'node:crypto';
import type { Queryable } from '../db/pool';
import { newUuid, publicId } from '../ids';
import { ALL_SCOPES, type Scope } from './scopes';
import { LATEST_API_VERSION, type ApiVersion } from './versions';

export type VerificationStatus = 'not_started' | 'pending' | 'verified' | 'rejected';

export interface AccountRow {
  id: string;
  name: string;
  api_version: ApiVersion;
  verification_status: VerificationStatus;
  verification_rejection_reason: string | null;
  payout_bank: { iban: string; holder: string } | null;
  payout_wallet: { address: string; network: string } | null;
  created_at: Date;
}

export interface ApiKeyRow {
  id: string;
  account_id: string;
  livemode: boolean;
  prefix: string;
  last4: string;
  scopes: Scope[];
  name: string | null;
  created_at: Date;
  revoked_at: Date | null;
}

/** Sandbox payout destinations every new account starts with, so sandbox payouts work at once. */
export const SANDBOX_PAYOUT_BANK = { iban: 'DE89370400440532013000', holder: 'Sandbox Merchant' };
export const SANDBOX_PAYOUT_WALLET = { address: '0x000000000000000000000000000000000000dEaD', network: 'ethereum' };

export function serializeAccount(a: AccountRow) {
  return {
    id: publicId('account', a.id),
    object: 'account' as const,
    name: a.name,
    api_version: a.api_version,
    verification: { status: a.verification_status, rejection_reason: a.verification_rejection_reason },
    live_enabled: a.verification_status === 'verified',
    created: Math.floor(a.created_at.getTime() / 1000),
  };
}

export function serializeApiKey(k: ApiKeyRow) {
  return {
    id: publicId('apiKey', k.id),
    object: 'api_key' as const,
    livemode: k.livemode,
    prefix: k.prefix,
    last4: k.last4,
    scopes: k.scopes,
    name: k.name,
    revoked: k.revoked_at !== null,
    created: Math.floor(k.created_at.getTime() / 1000),
  };
}

export async function createAccount(db: Queryable, name: string): Promise<AccountRow> {
  const { rows } = await db.query(
    `INSERT INTO accounts (id, name, api_version, payout_bank, payout_wallet)
     VALUES ($1, $2, $3, $4, $5) RETURNING *`,
    [newUuid(), name, LATEST_API_VERSION, SANDBOX_PAYOUT_BANK, SANDBOX_PAYOUT_WALLET],
  );
  return rows[0];
}

export async function getAccount(db: Queryable, id: string): Promise<AccountRow | null> {
  const { rows } = await db.query('SELECT * FROM accounts WHERE id = $1', [id]);
  return rows[0] ?? null;
}

export async function markAccountVerified(db: Queryable, id: string): Promise<AccountRow | null> {
  const { rows } = await db.query(
    `UPDATE accounts SET verification_status = 'verified', verification_rejection_reason = NULL WHERE id = $1 RETURNING *`,
    [id],
  );
  return rows[0] ?? null;
}

/** API keys are 192-bit random secrets, so a fast hash (SHA-256) is the right tool; a slow KDF is for passwords. */
export function hashSecret(secret: string): string {
  return crypto.createHash('sha256').update(secret, 'utf8').digest('hex');
}

export async function createApiKey(
  db: Queryable,
  input: { accountId: string; livemode: boolean; scopes?: Scope[]; name?: string },
): Promise<{ key: ApiKeyRow; secret: string }> {
  const secret = `sk_${input.livemode ? 'live' : 'test'}_${crypto.randomBytes(24).toString('base64url')}`;
  const { rows } = await db.query(
    `INSERT INTO api_keys (id, account_id, livemode, secret_hash, prefix, last4, scopes, name)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8)
     RETURNING id, account_id, livemode, prefix, last4, scopes, name, created_at, revoked_at`,
    [
      newUuid(),
      input.accountId,
      input.livemode,
      hashSecret(secret),
      secret.slice(0, 8),
      secret.slice(-4),
      input.scopes ?? [...ALL_SCOPES],
      input.name ?? null,
    ],
  );
  return { key: rows[0], secret };
}

export async function revokeApiKey(db: Queryable, accountId: string, keyId: string): Promise<ApiKeyRow | null> {
  const { rows } = await db.query(
    `UPDATE api_keys SET revoked_at = COALESCE(revoked_at, now()) WHERE id = $1 AND account_id = $2
     RETURNING id, account_id, livemode, prefix, last4, scopes, name, created_at, revoked_at`,
    [keyId, accountId],
  );
  return rows[0] ?? null;
}

export interface AuthenticatedKey {
  keyId: string;
  accountId: string;
  livemode: boolean;
  scopes: Scope[];
  accountVerified: boolean;
  accountApiVersion: ApiVersion;
}

const FIND_ACTIVE_KEY = `SELECT k.id, k.account_id, k.livemode, k.scopes, a.verification_status, a.api_version
     FROM api_keys k JOIN accounts a ON a.id = k.account_id
    WHERE k.secret_hash = $1 AND k.revoked_at IS NULL`;

/** One round trip: the key, its account's verification and pinned version. Revoked keys are not found. */
export async function findActiveKeyBySecret(db: Queryable, secret: string): Promise<AuthenticatedKey | null> {
  return findActiveKeyByHash(db, hashSecret(secret));
}

export async function findActiveKeyByHash(db: Queryable, secretHash: string): Promise<AuthenticatedKey | null> {
  const { rows } = await db.query(FIND_ACTIVE_KEY, [secretHash]);
  const r = rows[0];
  if (!r) return null;
  return {
    keyId: r.id,
    accountId: r.account_id,
    livemode: r.livemode,
    scopes: r.scopes,
    accountVerified: r.verification_status === 'verified',
    accountApiVersion: r.api_version,
  };
}
