import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import type { RunningApi } from '../../src/api';
import { call, closeTestDb, startTestApi } from '../support/stack';

const run = promisify(execFile);
const root = path.resolve(__dirname, '..', '..');

async function admin(...args: string[]) {
  const { stdout } = await run('npm', ['run', '--silent', 'admin', '--', ...args], {
    cwd: root,
    env: { ...process.env, DATABASE_URL: process.env.TEST_DATABASE_URL },
  });
  return JSON.parse(stdout);
}

let api: RunningApi;
beforeAll(async () => {
  api = await startTestApi();
});
afterAll(async () => {
  await api.close();
  await closeTestDb();
});

it('creates an account and keys, and verifying the account enables its live key', async () => {
  const account = await admin('accounts', 'create', '--name', 'CLI merchant');
  expect(account).toMatchObject({ object: 'account', name: 'CLI merchant', live_enabled: false });
  expect(account.id).toMatch(/^acct_[0-9a-f-]{36}$/);

  const test = await admin('keys', 'create', '--account', account.id, '--mode', 'test');
  expect(test.secret).toMatch(/^sk_test_[A-Za-z0-9_-]{32,}$/);
  expect(test.scopes).toHaveLength(7);
  expect((await call(api.url, 'GET', '/v1/account', { key: test.secret })).body.id).toBe(account.id);

  const live = await admin('keys', 'create', '--account', account.id, '--mode', 'live', '--scopes', 'payments:read,events:read');
  expect(live.scopes).toEqual(['payments:read', 'events:read']);
  expect((await call(api.url, 'GET', '/v1/account', { key: live.secret })).body.error.code).toBe('account_not_verified');

  const verified = await admin('accounts', 'verify', account.id);
  expect(verified.live_enabled).toBe(true);
  expect((await call(api.url, 'GET', '/v1/account', { key: live.secret })).status).toBe(200);
});

it('fails with a usage message and exit code 1 on bad input', async () => {
  await expect(admin('keys', 'create', '--account', 'acct_nope', '--mode', 'test')).rejects.toMatchObject({ code: 1, stderr: expect.stringContaining('--account acct_… is required') });
  await expect(admin('keys', 'create', '--account', 'acct_00000000-0000-7000-8000-000000000000', '--mode', 'test', '--scopes', 'pay:all')).rejects.toMatchObject({ stderr: expect.stringContaining('unknown scopes: pay:all') });
});
