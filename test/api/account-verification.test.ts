import type { RunningApi } from '../../src/api';
import { createVerificationActivities } from '../../activities/verification';
import { getAccount } from '../../src/domain/accounts';
import { submitVerification, VerificationSubmitSchema } from '../../src/domain/verification';
import { createLogger } from '../../src/logger';
import { call, closeTestDb, createMerchant, startTestApi, testDb } from '../support/stack';

let api: RunningApi;
beforeAll(async () => {
  api = await startTestApi();
});
afterAll(async () => {
  await api.close();
  await closeTestDb();
});

const details = {
  business: { legal_name: 'Acme Trading Ltd', country: 'GB', registration_number: '12345678' },
  representative: { name: 'Ada Lovelace', date_of_birth: '1985-12-10' },
  payout_bank: { iban: 'GB82 WEST 1234 5698 7654 32', holder: 'Acme Trading Ltd' },
  payout_wallet: { address: '0x52908400098527886E0F7030069857D2E4169EE7' },
};

async function pollAccount(key: string, until: (a: any) => boolean, timeoutMs = 60_000) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const res = await call(api.url, 'GET', '/v1/account', { key });
    expect(res.status).toBe(200);
    if (until(res.body) || Date.now() > deadline) return res.body;
    await new Promise((r) => setTimeout(r, 300));
  }
}

it('validates with param names and the error table', async () => {
  const m = await createMerchant();
  const cases: Array<[unknown, number, string, string | undefined]> = [
    [{ ...details, payout_bank: { iban: 'GB83WEST12345698765432', holder: 'X Y' } }, 400, 'parameter_invalid', 'payout_bank.iban'],
    [{ ...details, payout_wallet: { address: '0xnothex' } }, 400, 'parameter_invalid', 'payout_wallet.address'],
    [{ ...details, business: { legal_name: 'Acme', country: 'GB' } }, 400, 'parameter_missing', 'business.registration_number'],
    [{ ...details, representative: { name: 'Ada', date_of_birth: '1985-02-30' } }, 400, 'parameter_invalid', 'representative.date_of_birth'],
    [{ ...details, extra: 1 }, 400, 'parameter_unknown', 'extra'],
  ];
  for (const [body, status, code, param] of cases) {
    const res = await call(api.url, 'POST', '/v1/account/verification', { key: m.testKey, body });
    expect({ status: res.status, code: res.body.error?.code, param: res.body.error?.param }).toEqual({ status, code, param });
  }
  expect((await getAccount(testDb().pool, m.accountId))!.verification_status).toBe('not_started');
});

it('verifies through the workflow: pending, then verified; live keys start working; payout details stored', async () => {
  const m = await createMerchant();
  expect((await call(api.url, 'GET', '/v1/payments', { key: m.liveKey })).body.error.code).toBe('account_not_verified');
  const res = await call(api.url, 'POST', '/v1/account/verification', { key: m.testKey, body: details });
  expect(res.status).toBe(200);
  expect(res.body).toMatchObject({ id: m.publicAccountId, object: 'account', verification: { status: 'pending', rejection_reason: null }, live_enabled: false });
  const again = await call(api.url, 'POST', '/v1/account/verification', { key: m.testKey, body: details });
  expect(again.status).toBe(409);
  expect(again.body.error.code).toBe('account_unexpected_state');

  const account = await pollAccount(m.testKey, (a) => a.verification.status !== 'pending');
  expect(account).toMatchObject({ verification: { status: 'verified', rejection_reason: null }, live_enabled: true });
  const stored = (await getAccount(testDb().pool, m.accountId))!;
  expect(stored.payout_bank).toEqual({ iban: 'GB82WEST12345698765432', holder: 'Acme Trading Ltd' });
  expect(stored.payout_wallet).toEqual({ address: details.payout_wallet.address, network: 'ethereum' });
  expect((await call(api.url, 'GET', '/v1/payments', { key: m.liveKey })).status).toBe(200);

  const handle = api.services.temporal.workflow.getHandle(`account-verification-acct_${m.accountId}-1`);
  await expect(handle.result()).resolves.toEqual({ status: 'verified' });
});

it('rejects the documented test value with a reason, and a corrected resubmission passes as attempt 2', async () => {
  const m = await createMerchant();
  const res = await call(api.url, 'POST', '/v1/account/verification', {
    key: m.testKey,
    body: { ...details, business: { ...details.business, legal_name: 'REJECT Holdings' } },
  });
  expect(res.status).toBe(200);
  const rejected = await pollAccount(m.testKey, (a) => a.verification.status !== 'pending');
  expect(rejected).toMatchObject({ verification: { status: 'rejected', rejection_reason: expect.any(String) }, live_enabled: false });
  expect((await call(api.url, 'GET', '/v1/payments', { key: m.liveKey })).status).toBe(403);

  expect((await call(api.url, 'POST', '/v1/account/verification', { key: m.testKey, body: details })).status).toBe(200);
  const verified = await pollAccount(m.testKey, (a) => a.verification.status !== 'pending');
  expect(verified.verification.status).toBe('verified');
  const handle = api.services.temporal.workflow.getHandle(`account-verification-acct_${m.accountId}-2`);
  await expect(handle.result()).resolves.toEqual({ status: 'verified' });
});

it('maintenance starts the review of a submission whose workflow never started (crash between commit and start)', async () => {
  const m = await createMerchant();
  const { verification } = await testDb().withTransaction((tx) =>
    submitVerification(tx, m.accountId, VerificationSubmitSchema.parse(details)),
  );
  await testDb().query(`UPDATE account_verifications SET created_at = now() - interval '5 minutes' WHERE id = $1`, [verification.id]);
  const activities = createVerificationActivities({ db: testDb(), config: api.services.config, temporal: api.services.temporal, logger: createLogger('silent'), clock: () => new Date() });
  expect(await activities.startStalledVerifications(30)).toBeGreaterThanOrEqual(1);
  const account = await pollAccount(m.testKey, (a) => a.verification.status !== 'pending');
  expect(account.verification.status).toBe('verified');
  // Once decided it is no longer picked up; a second start of the same id would be refused anyway.
  const { rows } = await testDb().query(`SELECT count(*)::int AS n FROM account_verifications WHERE id = $1 AND status = 'pending'`, [verification.id]);
  expect(rows[0].n).toBe(0);
});
