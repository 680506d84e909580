import crypto from 'node:crypto';
import Router from '@koa/router';
import getRawBody from 'raw-body';
import { html, type RawHtml } from '../checkout/html';
import { createAccount, createApiKey, getAccount, revokeApiKey, serializeApiKey, type AccountRow } from '../domain/accounts';
import { formatAmount } from '../domain/money';
import { findPayment, listPayments, serializePayment } from '../domain/payments';
import { ALL_SCOPES, isScope, type Scope } from '../domain/scopes';
import { latestVerification, submitVerification, VerificationStateError, VerificationSubmitSchema, type VerificationRow } from '../domain/verification';
import { startVerificationWorkflow } from '../domain/verification-start';
import type { AppContext, AppServices, AppState } from '../http/context';
import { zodToApiError } from '../http/route';
import { isUuid, parsePublicId, publicId } from '../ids';
import { paymentWorkflowId, type PaymentStatus } from '../temporal/contract';
import { dummyPasswordHash, hashPassword, verifyPassword } from './passwords';
import {
  clearSigninFailures,
  createSession,
  deleteSession,
  findSession,
  findUserByEmail,
  insertUser,
  listApiKeys,
  listPaymentEvents,
  lockedUntil,
  recordSigninFailure,
  SESSION_TTL_MS,
  setSessionMode,
  THROTTLE,
  type DashboardSession,
} from './store';
import { alertBox, csrfField, field, formatDate, layout } from './views';

const SESSION_COOKIE = 'dash_session';
/** Double-submit token for the forms shown before there is a session (sign up, sign in). */
const PRE_CSRF_COOKIE = 'dash_csrf';
const PAYMENT_STATUSES: PaymentStatus[] = ['requires_action', 'processing', 'succeeded', 'canceled'];
const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

class Forbidden extends Error {}

/**
 * The merchant dashboard at {basePath}/dashboard: server-rendered pages, no client script.
 * Sessions are an httpOnly SameSite=Lax cookie holding a random token (stored hashed);
 * every POST carries a CSRF token (per session, or double-submit before sign-in).
 */
export function dashboardRouter(services: AppServices): Router<AppState> {
  const base = `${services.config.basePath}/dashboard`;
  const router = new Router<AppState>({ prefix: base });
  const db = services.db;
  const secure = services.config.publicBaseUrl.startsWith('https:');
  const cookiePath = base;

  function setCookie(ctx: AppContext, name: string, value: string, maxAgeSeconds: number) {
    ctx.append('Set-Cookie', `${name}=${value}; Path=${cookiePath}; Max-Age=${maxAgeSeconds}; HttpOnly; SameSite=Lax${secure ? '; Secure' : ''}`);
  }

  router.use(async (ctx: AppContext, next) => {
    ctx.set('Cache-Control', 'no-store');
    ctx.set('Content-Security-Policy', "default-src 'none'; style-src 'unsafe-inline'; img-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'");
    ctx.set('X-Content-Type-Options', 'nosniff');
    ctx.set('Referrer-Policy', 'same-origin');
    try {
      await next();
    } catch (err) {
      if (!(err instanceof Forbidden)) throw err;
      ctx.status = 403;
      ctx.type = 'html';
      ctx.body = layout('Forbidden', html`<div class="card narrow"><h1>This form has expired</h1>${alertBox('The form could not be verified (missing or invalid CSRF token). Go back, reload the page and try again.')}</div>`, { base });
    }
  });

  function render(ctx: AppContext, status: number, title: string, body: RawHtml, opts: { session?: DashboardSession; active?: string; refreshSeconds?: number } = {}) {
    ctx.status = status;
    ctx.type = 'html';
    ctx.body = layout(title, body, { base, path: ctx.path, ...opts });
  }

  async function readForm(ctx: AppContext): Promise<URLSearchParams> {
    try {
      return new URLSearchParams(await getRawBody(ctx.req, { limit: '32kb', encoding: 'utf8' }));
    } catch {
      throw new Forbidden();
    }
  }

  const sameToken = (a: string | null | undefined, b: string | null | undefined) => {
    if (!a || !b) return false;
    const x = Buffer.from(a);
    const y = Buffer.from(b);
    return x.length === y.length && crypto.timingSafeEqual(x, y);
  };

  /** The pre-session token: reuses the cookie, or sets a new one. */
  function preCsrf(ctx: AppContext): string {
    const existing = ctx.cookies.get(PRE_CSRF_COOKIE);
    if (existing && /^[A-Za-z0-9_-]{43}$/.test(existing)) return existing;
    const token = crypto.randomBytes(32).toString('base64url');
    setCookie(ctx, PRE_CSRF_COOKIE, token, 24 * 3600);
    return token;
  }

  async function sessionOf(ctx: AppContext): Promise<DashboardSession | null> {
    const token = ctx.cookies.get(SESSION_COOKIE);
    if (!token || !/^[A-Za-z0-9_-]{43}$/.test(token)) return null;
    return findSession(db.pool, token);
  }

  /** Page handlers: without a session, to sign-in. */
  function page(handler: (ctx: AppContext, s: DashboardSession) => Promise<void>) {
    return async (ctx: AppContext) => {
      const s = await sessionOf(ctx);
      if (!s) {
        ctx.status = 303;
        return ctx.redirect(`${base}/signin`);
      }
      await handler(ctx, s);
    };
  }

  /** Form handlers: a session and its CSRF token, or 403. */
  function action(handler: (ctx: AppContext, s: DashboardSession, form: URLSearchParams) => Promise<void>) {
    return page(async (ctx, s) => {
      const form = await readForm(ctx);
      if (!sameToken(form.get('_csrf'), s.csrf_token)) throw new Forbidden();
      await handler(ctx, s, form);
    });
  }

  const scopeOf = (s: DashboardSession) => ({ accountId: s.account_id, livemode: s.livemode });

  // ---- Sign up, sign in, sign out -------------------------------------------------------

  function signupPage(ctx: AppContext, status: number, values: { business_name?: string; email?: string } = {}, errors: Record<string, string> = {}, message?: string) {
    render(ctx, status, 'Create your account', html`<div class="card narrow"><h1>Create your account</h1>
      <p class="muted">You get a sandbox API key at once. Live keys work after verification.</p>${alertBox(message)}
      <form method="post" action="${base}/signup" novalidate>${csrfField(preCsrf(ctx))}
        ${field('business_name', 'Business name', { value: values.business_name, error: errors.business_name, attrs: 'required autocomplete="organization"' })}
        ${field('email', 'E-mail', { type: 'email', value: values.email, error: errors.email, attrs: 'required autocomplete="email"' })}
        ${field('password', 'Password', { type: 'password', error: errors.password, hint: 'At least 10 characters.', attrs: 'required minlength="10" autocomplete="new-password"' })}
        <button type="submit">Create account</button></form>
      <p>Already have an account? <a href="${base}/signin">Sign in</a></p></div>`);
  }

  function signinPage(ctx: AppContext, status: number, email = '', message?: string) {
    render(ctx, status, 'Sign in', html`<div class="card narrow"><h1>Sign in</h1>${alertBox(message)}
      <form method="post" action="${base}/signin">${csrfField(preCsrf(ctx))}
        ${field('email', 'E-mail', { type: 'email', value: email, attrs: 'required autocomplete="username"' })}
        ${field('password', 'Password', { type: 'password', attrs: 'required autocomplete="current-password"' })}
        <button type="submit">Sign in</button></form>
      <p>New here? <a href="${base}/signup">Create an account</a></p></div>`);
  }

  async function startSession(ctx: AppContext, user: { id: string; account_id: string }): Promise<string> {
    const token = await createSession(db.pool, user);
    setCookie(ctx, SESSION_COOKIE, token, Math.floor(SESSION_TTL_MS / 1000));
    return token;
  }

  router.get('/signup', async (ctx: AppContext) => signupPage(ctx, 200));
  router.post('/signup', async (ctx: AppContext) => {
    const form = await readForm(ctx);
    if (!sameToken(form.get('_csrf'), ctx.cookies.get(PRE_CSRF_COOKIE))) throw new Forbidden();
    const values = { business_name: (form.get('business_name') ?? '').trim(), email: (form.get('email') ?? '').trim().toLowerCase() };
    const password = form.get('password') ?? '';
    const errors: Record<string, string> = {};
    if (values.business_name.length < 2 || values.business_name.length > 200) errors.business_name = 'Enter your business name (2–200 characters).';
    if (!EMAIL.test(values.email) || values.email.length > 254) errors.email = 'Enter a valid e-mail address.';
    if (password.length < 10 || password.length > 1024) errors.password = 'Use at least 10 characters.';
    if (Object.keys(errors).length) return signupPage(ctx, 400, values, errors, 'Please correct the fields below.');
    const passwordHash = await hashPassword(password);
    const created = await db.withTransaction(async (tx) => {
      const account = await createAccount(tx, values.business_name);
      const user = await insertUser(tx, { accountId: account.id, email: values.email, passwordHash });
      if (!user) throw new EmailTaken();
      const key = await createApiKey(tx, { accountId: account.id, livemode: false, name: 'Default sandbox key' });
      return { account, user, key };
    }).catch((err) => {
      if (err instanceof EmailTaken) return null;
      throw err;
    });
    if (!created) return signupPage(ctx, 400, values, { email: 'This e-mail cannot be used. If you already have an account, sign in.' }, 'Please correct the fields below.');
    const session = (await findSession(db.pool, await startSession(ctx, created.user))) ?? undefined;
    // The secret is in this response only: never stored, never in a URL, never rendered again.
    render(ctx, 201, 'Welcome', html`<div class="card"><h1>Welcome, ${created.account.name}</h1>
      <p>Your account <code>${publicId('account', created.account.id)}</code> is ready, with a sandbox API key:</p>
      ${secretBox(created.key.secret)}
      <p><a href="${base}/payments">Go to the dashboard</a> · <a href="${base}/verification">Verify your business for live payments</a></p></div>`, { session });
  });

  router.get('/signin', async (ctx: AppContext) => signinPage(ctx, 200));
  router.post('/signin', async (ctx: AppContext) => {
    const form = await readForm(ctx);
    if (!sameToken(form.get('_csrf'), ctx.cookies.get(PRE_CSRF_COOKIE))) throw new Forbidden();
    const email = (form.get('email') ?? '').trim().toLowerCase().slice(0, 254);
    const password = form.get('password') ?? '';
    const keys = [`email:${email}`, `ip:${ctx.ip}`];
    if (await lockedUntil(db.pool, keys)) {
      ctx.set('Retry-After', String(Math.ceil(THROTTLE.email.lockMs / 1000)));
      return signinPage(ctx, 429, email, 'Too many failed sign-in attempts. Try again in 15 minutes.');
    }
    const user = email ? await findUserByEmail(db.pool, email) : null;
    const ok = await verifyPassword(password.slice(0, 1024), user?.password_hash ?? (await dummyPasswordHash()));
    if (!user || !ok) {
      await recordSigninFailure(db.pool, keys[0], THROTTLE.email);
      await recordSigninFailure(db.pool, keys[1], THROTTLE.ip);
      ctx.state.log.info({ event: 'dashboard_signin_failed' }, 'dashboard sign-in failed');
      return signinPage(ctx, 401, email, 'Incorrect e-mail or password.');
    }
    await clearSigninFailures(db.pool, keys[0]);
    await startSession(ctx, user);
    ctx.status = 303;
    ctx.redirect(`${base}/payments`);
  });

  router.post(
    '/signout',
    action(async (ctx, s) => {
      await deleteSession(db.pool, s.token_hash);
      setCookie(ctx, SESSION_COOKIE, '', 0);
      ctx.status = 303;
      ctx.redirect(`${base}/signin`);
    }),
  );

  router.get('/', async (ctx: AppContext) => {
    ctx.status = 303;
    ctx.redirect(`${base}/payments`);
  });

  router.post(
    '/mode',
    action(async (ctx, s, form) => {
      await setSessionMode(db.pool, s.token_hash, form.get('mode') === 'live');
      const back = form.get('return_to') ?? '';
      // Only back to a dashboard list page: detail pages belong to one mode.
      const target = ['payments', 'keys', 'verification'].map((p) => `${base}/${p}`).find((p) => back === p) ?? `${base}/payments`;
      ctx.status = 303;
      ctx.redirect(target);
    }),
  );

  // ---- Payments ------------------------------------------------------------------------

  router.get(
    '/payments',
    page(async (ctx, s) => {
      const status = PAYMENT_STATUSES.find((x) => x === ctx.query.status);
      const cursor = typeof ctx.query.cursor === 'string' && isUuid(ctx.query.cursor) ? ctx.query.cursor : undefined;
      const { rows, hasMore } = await listPayments(db.pool, scopeOf(s), { limit: 20, cursor, status });
      const qs = (c: string) => `?${new URLSearchParams({ ...(status ? { status } : {}), cursor: c })}`;
      const table = rows.length
        ? html`<div class="table-wrap"><table><caption class="muted" style="text-align:left">Newest first</caption><thead><tr><th scope="col">Payment</th><th scope="col">Amount</th><th scope="col">Status</th><th scope="col">Method</th><th scope="col">Created</th></tr></thead><tbody>
          ${rows.map((p) => html`<tr data-testid="payment-row"><td><a href="${base}/payments/pmt_${p.id}"><code>pmt_${p.id}</code></a></td><td>${formatAmount(p.amount, p.currency)}</td><td class="status">${p.status}</td><td>${p.payment_method?.type ?? '—'}</td><td>${formatDate(p.created_at)}</td></tr>`)}
          </tbody></table></div>`
        : html`<p>No ${s.livemode ? 'live' : 'sandbox'} payments${status ? html` with status ${status}` : ''} yet.</p>`;
      render(ctx, 200, 'Payments', html`<div class="card"><h1>Payments</h1>
        <form method="get" action="${base}/payments"><label for="status">Status</label>
          <select id="status" name="status"><option value="">All</option>${PAYMENT_STATUSES.map((x) => html`<option value="${x}"${x === status ? html` selected` : ''}>${x}</option>`)}</select>
          <button type="submit" class="secondary" style="display:inline-block;width:auto;margin-left:8px">Filter</button></form>
        ${table}
        <p>${cursor ? html`<a href="${base}/payments${status ? `?status=${status}` : ''}">Newest</a> · ` : ''}${hasMore ? html`<a href="${base}/payments${qs(rows[rows.length - 1].id)}" rel="next">Older payments →</a>` : ''}</p></div>`, { session: s, active: 'payments' });
    }),
  );

  router.get(
    '/payments/:id',
    page(async (ctx, s) => {
      const uuid = parsePublicId('payment', String(ctx.params.id));
      const row = uuid ? await findPayment(db.pool, scopeOf(s), uuid) : null;
      if (!row) return render(ctx, 404, 'Payment not found', html`<div class="card"><h1>Payment not found</h1><p>There is no ${s.livemode ? 'live' : 'sandbox'} payment with this id in your account.</p><p><a href="${base}/payments">All payments</a></p></div>`, { session: s, active: 'payments' });
      const p = serializePayment(row, services.config.publicBaseUrl);
      const events = await listPaymentEvents(db.pool, scopeOf(s), row.id);
      const { uiUrl, namespace } = services.config.temporal;
      const workflowUrl = `${uiUrl}/namespaces/${encodeURIComponent(namespace)}/workflows/${encodeURIComponent(paymentWorkflowId(row.id))}`;
      render(ctx, 200, `Payment ${p.id}`, html`<div class="card"><p><a href="${base}/payments">← All payments</a></p><h1>${formatAmount(row.amount, row.currency)} · <span data-testid="payment-status">${row.status}</span></h1>
        <dl><dt>Id</dt><dd>${p.id}</dd><dt>Status</dt><dd>${p.status}</dd><dt>Amount</dt><dd>${formatAmount(row.amount, row.currency)} (${row.amount} ${row.currency})</dd>
        <dt>Payment method</dt><dd>${p.payment_method ? `${p.payment_method.type}${p.payment_method.brand ? ` ${p.payment_method.brand}` : ''}${p.payment_method.last4 ? ` •••• ${p.payment_method.last4}` : ''}` : '—'}</dd>
        <dt>Last payment error</dt><dd data-testid="last-error">${p.last_payment_error ? `${p.last_payment_error.code}: ${p.last_payment_error.message}` : '—'}</dd>
        <dt>Payout</dt><dd data-testid="payout-status">${p.payout.type} in ${p.payout.currency} · ${p.payout_status ?? 'not yet due'}</dd>
        <dt>Created</dt><dd>${formatDate(row.created_at)}</dd><dt>Checkout</dt><dd><a href="${p.checkout_url}">${p.checkout_url}</a></dd>
        <dt>Workflow</dt><dd><a href="${workflowUrl}" data-testid="workflow-link">${paymentWorkflowId(row.id)} in the Temporal UI</a></dd></dl></div>
        <div class="card"><h2 style="margin-top:0">Events</h2>${
          events.length
            ? html`<div class="table-wrap"><table><caption class="muted" style="text-align:left">Oldest first</caption><thead><tr><th scope="col">Event</th><th scope="col">Type</th><th scope="col">Created</th></tr></thead><tbody>
              ${events.map((e) => html`<tr data-testid="event-row"><td><code>evt_${e.id}</code></td><td>${e.type}</td><td>${formatDate(e.created_at)}</td></tr>`)}</tbody></table></div>`
            : html`<p>No events yet.</p>`
        }</div>`, { session: s, active: 'payments' });
    }),
  );

  // ---- API keys ------------------------------------------------------------------------

  async function keysPage(ctx: AppContext, s: DashboardSession, status: number, extra: { secret?: string; error?: string } = {}) {
    const keys = (await listApiKeys(db.pool, s.account_id, s.livemode)).map(serializeApiKey);
    const account = await getAccount(db.pool, s.account_id);
    render(ctx, status, 'API keys', html`${extra.secret ? html`<div class="card" role="status"><h1>New ${s.livemode ? 'live' : 'sandbox'} key</h1>${secretBox(extra.secret)}</div>` : ''}
      <div class="card"><h1>${s.livemode ? 'Live' : 'Sandbox'} API keys</h1>
      ${s.livemode && account?.verification_status !== 'verified' ? html`<p class="banner" role="note">Live keys can be created now but answer 403 account_not_verified until your account is verified. <a href="${base}/verification">Verify</a></p>` : ''}
      ${keys.length ? html`<div class="table-wrap"><table><thead><tr><th scope="col">Name</th><th scope="col">Key</th><th scope="col">Scopes</th><th scope="col">Created</th><th scope="col">Status</th></tr></thead><tbody>
        ${keys.map((k) => html`<tr data-testid="key-row" data-key-id="${k.id}"><td>${k.name ?? '—'}</td><td><code style="white-space:nowrap">${k.prefix}…${k.last4}</code></td><td>${k.scopes.join(', ')}</td><td>${formatDate(k.created)}</td>
          <td>${k.revoked ? 'Revoked' : html`Active <form class="inline" method="post" action="${base}/keys/${k.id}/revoke">${csrfField(s.csrf_token)}<button type="submit" class="secondary" aria-label="Revoke key ${k.prefix}…${k.last4}">Revoke</button></form>`}</td></tr>`)}
        </tbody></table></div>` : html`<p>No ${s.livemode ? 'live' : 'sandbox'} keys yet.</p>`}</div>
      <div class="card"><h2 style="margin-top:0">Create a ${s.livemode ? 'live' : 'sandbox'} key</h2>${alertBox(extra.error)}
      <form method="post" action="${base}/keys">${csrfField(s.csrf_token)}
        ${field('name', 'Name', { attrs: 'maxlength="100"' })}
        <fieldset class="checks"><legend>Scopes</legend>${ALL_SCOPES.map((sc) => html`<label><input type="checkbox" name="scopes" value="${sc}" checked> ${sc}</label>`)}</fieldset>
        <button type="submit">Create key</button></form></div>`, { session: s, active: 'keys' });
  }

  router.get('/keys', page((ctx, s) => keysPage(ctx, s, 200)));
  router.post(
    '/keys',
    action(async (ctx, s, form) => {
      const scopes = [...new Set(form.getAll('scopes'))].filter(isScope) as Scope[];
      if (scopes.length === 0) return keysPage(ctx, s, 400, { error: 'Choose at least one scope.' });
      const name = (form.get('name') ?? '').trim().slice(0, 100) || null;
      const { secret } = await createApiKey(db.pool, { accountId: s.account_id, livemode: s.livemode, scopes, ...(name ? { name } : {}) });
      await keysPage(ctx, s, 201, { secret });
    }),
  );
  router.post(
    '/keys/:id/revoke',
    action(async (ctx, s) => {
      const uuid = parsePublicId('apiKey', String(ctx.params.id));
      const revoked = uuid ? await revokeApiKey(db.pool, s.account_id, uuid) : null;
      if (!revoked) return render(ctx, 404, 'Key not found', html`<div class="card"><h1>Key not found</h1><p><a href="${base}/keys">API keys</a></p></div>`, { session: s, active: 'keys' });
      ctx.status = 303;
      ctx.redirect(`${base}/keys`);
    }),
  );

  // ---- Verification --------------------------------------------------------------------

  async function verificationPage(ctx: AppContext, s: DashboardSession, status: number, form?: { values: Record<string, string>; errors: Record<string, string> }) {
    const account = (await getAccount(db.pool, s.account_id)) as AccountRow;
    const latest = await latestVerification(db.pool, s.account_id);
    const state = account.verification_status;
    const canSubmit = state === 'not_started' || state === 'rejected';
    const v = form?.values ?? prefill(latest);
    const e = form?.errors ?? {};
    const f = (name: string, label: string, attrs = 'required', hint?: string) => field(name, label, { value: v[name], error: e[name], attrs, hint });
    const summary: Record<typeof state, RawHtml> = {
      not_started: html`<p>Not started. Submit your details to enable live payments.</p>`,
      pending: html`<p>Your details are being reviewed. This page refreshes by itself.</p>`,
      verified: html`<p class="success">Verified. Live keys work and payouts go to ${account.payout_bank?.iban ?? ''} and ${account.payout_wallet?.address ?? ''}.</p>`,
      rejected: html`<p>Rejected: ${account.verification_rejection_reason ?? ''}</p><p>Correct the details and submit again.</p>`,
    };
    render(ctx, status, 'Verification', html`<div class="card"><h1>Verification</h1>
      <p>Status: <span class="status" data-testid="verification-status">${state}</span></p>${summary[state]}</div>
      ${canSubmit ? html`<div class="card"><h2 style="margin-top:0">Tier 1 details</h2>${alertBox(Object.keys(e).length ? 'Please correct the fields below.' : undefined)}
        <form method="post" action="${base}/verification" novalidate>${csrfField(s.csrf_token)}
        <fieldset><legend>Business</legend><div class="grid2">${f('business.legal_name', 'Legal name')}${f('business.country', 'Country', 'required maxlength="2"', 'Two-letter code, e.g. GB')}${f('business.registration_number', 'Registration number')}</div></fieldset>
        <fieldset><legend>Representative</legend><div class="grid2">${f('representative.name', 'Full name')}${field('representative.date_of_birth', 'Date of birth', { type: 'date', value: v['representative.date_of_birth'], error: e['representative.date_of_birth'], attrs: 'required' })}</div></fieldset>
        <fieldset><legend>Payouts</legend><div class="grid2">${f('payout_bank.iban', 'Bank account (IBAN)')}${f('payout_bank.holder', 'Account holder')}${f('payout_wallet.address', 'USDC wallet address', 'required', '0x followed by 40 hexadecimal characters')}</div></fieldset>
        <button type="submit">Submit for review</button></form></div>` : ''}`, { session: s, active: 'verification', refreshSeconds: state === 'pending' ? 3 : undefined });
  }

  router.get('/verification', page((ctx, s) => verificationPage(ctx, s, 200)));
  router.post(
    '/verification',
    action(async (ctx, s, form) => {
      const values: Record<string, string> = {};
      const nested: Record<string, Record<string, string>> = {};
      for (const name of VERIFICATION_FIELDS) {
        const value = (form.get(name) ?? '').trim();
        values[name] = value;
        const [group, key] = name.split('.');
        (nested[group] ??= {})[key] = name === 'business.country' ? value.toUpperCase() : value;
      }
      const parsed = VerificationSubmitSchema.safeParse(nested);
      if (!parsed.success) {
        const errors: Record<string, string> = {};
        for (const issue of parsed.error.issues) {
          const param = issue.path.join('.');
          if (errors[param]) continue;
          const missing = zodToApiError({ issues: [issue] } as any, nested).code === 'parameter_missing' || values[param] === '';
          errors[param] = missing ? 'This field is required.' : `${issue.message.charAt(0).toUpperCase()}${issue.message.slice(1)}.`;
        }
        return verificationPage(ctx, s, 400, { values, errors });
      }
      let submitted: VerificationRow;
      try {
        submitted = await db.withTransaction(async (tx) => (await submitVerification(tx, s.account_id, parsed.data)).verification);
      } catch (err) {
        if (!(err instanceof VerificationStateError)) throw err;
        ctx.status = 303;
        return ctx.redirect(`${base}/verification`);
      }
      try {
        await startVerificationWorkflow(services, submitted);
      } catch (err) {
        ctx.state.log.warn({ err: (err as Error).message }, 'verification workflow start failed');
      }
      ctx.status = 303;
      ctx.redirect(`${base}/verification`);
    }),
  );

  return router;
}

class EmailTaken extends Error {}

const VERIFICATION_FIELDS = [
  'business.legal_name',
  'business.country',
  'business.registration_number',
  'representative.name',
  'representative.date_of_birth',
  'payout_bank.iban',
  'payout_bank.holder',
  'payout_wallet.address',
] as const;

/** A rejected submission's details come back into the form so they can be corrected. */
function prefill(latest: VerificationRow | null): Record<string, string> {
  if (!latest) return {};
  const out: Record<string, string> = {};
  for (const name of VERIFICATION_FIELDS) {
    const [group, key] = name.split('.');
    out[name] = String((latest.details as any)[group]?.[key] ?? '');
  }
  return out;
}

function secretBox(secret: string): RawHtml {
  return html`<div class="secret"><label for="secret-key">Secret key (shown once: copy it now)</label>
    <input id="secret-key" readonly value="${secret}" data-testid="secret-key" spellcheck="false" autocomplete="off">
    <p class="muted">We store only a hash of this key. It will not be shown again.</p></div>`;
}
