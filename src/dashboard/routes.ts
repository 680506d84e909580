import crypto from 'node:crypto';
import Router from '@koa/router';
import getRawBody from 'raw-body';
import { html, type RawHtml } from '../checkout/html';
import { createAccount, createApiKey, getAccount, revokeApiKey, serializeApiKey, type AccountRow } from '../domain/accounts';
import { EVENT_TYPES, insertEvent, serializeEvent, type EventType } from '../domain/events';
import { getEvent, listEvents } from '../domain/events-query';
import { CURRENCY_EXPONENT, formatAmount, PRESENTMENT_CURRENCIES } from '../domain/money';
import { deactivatePaymentLink, insertPaymentLink, listPaymentLinks, paymentLinkUrl } from '../domain/payment-links';
import type { Queryable } from '../db/pool';
import { PaymentLinkCreateSchema } from '../http/routes/payment-links/schemas';
import { resolvePaymentSettings } from '../http/routes/payments/schemas';
import { assertAllowedWebhookUrl, UnsafeDestinationError } from '../webhooks/address';
import { dispatchDeps, dispatchToEndpoint, startReplay } from '../webhooks/dispatch';
import {
  createEndpoint,
  deleteEndpoint,
  getEndpoint,
  listDeliveries,
  listEndpoints,
  rotateSecret,
  updateEndpoint,
  type AttemptRow,
  type DeliveryRow,
  type EndpointRow,
} from '../webhooks/repository';
import { findPayment, listPayments, serializePayment } from '../domain/payments';
import { ALL_SCOPES, isScope, type Scope } from '../domain/scopes';
import { latestVerification, submitVerification, VerificationStateError, VerificationSubmitSchema, type VerificationRow } from '../domain/verification';
import { startVerificationWorkflow } from '../domain/verification-start';
import type { AppContext, AppServices, AppState } from '../http/context';
import { zodToApiError } from '../http/route';
import { isUuid, newUuid, parsePublicId, publicId, uuidV7Bounds } from '../ids';
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
      const target = ['payments', 'keys', 'verification', 'webhooks', 'events', 'payment-links'].map((p) => `${base}/${p}`).find((p) => back === p) ?? `${base}/payments`;
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
      // Filters: created on or after / on or before a UTC date, and an amount range in minor units.
      // A malformed value is ignored (the field shows empty) rather than an error page.
      const q = (name: string) => (typeof ctx.query[name] === 'string' ? (ctx.query[name] as string) : '');
      const day = (v: string) => (/^\d{4}-\d{2}-\d{2}$/.test(v) && !Number.isNaN(Date.parse(`${v}T00:00:00Z`)) ? Date.parse(`${v}T00:00:00Z`) / 1000 : undefined);
      const minor = (v: string) => (/^\d{1,8}$/.test(v) ? Number(v) : undefined);
      const from = day(q('from'));
      const to = day(q('to'));
      const amountMin = minor(q('amount_min'));
      const amountMax = minor(q('amount_max'));
      const filters: Record<string, string> = {
        ...(status ? { status } : {}),
        ...(from !== undefined ? { from: q('from') } : {}),
        ...(to !== undefined ? { to: q('to') } : {}),
        ...(amountMin !== undefined ? { amount_min: q('amount_min') } : {}),
        ...(amountMax !== undefined ? { amount_max: q('amount_max') } : {}),
      };
      const { rows, hasMore } = await listPayments(db.pool, scopeOf(s), {
        limit: 20,
        cursor,
        status,
        idFrom: from !== undefined ? uuidV7Bounds(from).min : undefined,
        idTo: to !== undefined ? uuidV7Bounds(to + 86399).max : undefined,
        amountMin,
        amountMax,
      });
      const qs = (c?: string) => {
        const params = new URLSearchParams({ ...filters, ...(c ? { cursor: c } : {}) }).toString();
        return params ? `?${params}` : '';
      };
      const filtered = Object.keys(filters).length > 0;
      const table = rows.length
        ? html`<div class="table-wrap"><table><caption class="muted" style="text-align:left">Newest first</caption><thead><tr><th scope="col">Payment</th><th scope="col">Amount</th><th scope="col">Status</th><th scope="col">Method</th><th scope="col">Created</th></tr></thead><tbody>
          ${rows.map((p) => html`<tr data-testid="payment-row"><td><a href="${base}/payments/pmt_${p.id}"><code>pmt_${p.id}</code></a></td><td>${formatAmount(p.amount, p.currency)}</td><td class="status">${p.status}</td><td>${p.payment_method?.type ?? '—'}</td><td>${formatDate(p.created_at)}</td></tr>`)}
          </tbody></table></div>`
        : html`<p>No ${s.livemode ? 'live' : 'sandbox'} payments${filtered ? ' match these filters' : ' yet'}.</p>`;
      render(ctx, 200, 'Payments', html`<div class="card"><h1>Payments</h1>
        <form method="get" action="${base}/payments" class="filters">
          <label for="status">Status</label>
          <select id="status" name="status"><option value="">All</option>${PAYMENT_STATUSES.map((x) => html`<option value="${x}"${x === status ? html` selected` : ''}>${x}</option>`)}</select>
          <label for="from">Created on or after (UTC)</label><input id="from" name="from" type="date" value="${from !== undefined ? q('from') : ''}">
          <label for="to">Created on or before (UTC)</label><input id="to" name="to" type="date" value="${to !== undefined ? q('to') : ''}">
          <label for="amount_min">Amount at least (minor units, 2500 = €25.00)</label><input id="amount_min" name="amount_min" inputmode="numeric" value="${amountMin !== undefined ? q('amount_min') : ''}">
          <label for="amount_max">Amount at most (minor units)</label><input id="amount_max" name="amount_max" inputmode="numeric" value="${amountMax !== undefined ? q('amount_max') : ''}">
          <button type="submit" class="secondary" style="display:inline-block;width:auto;margin-top:8px">Filter</button></form>
        ${table}
        <p>${cursor ? html`<a href="${base}/payments${qs()}">Newest</a> · ` : ''}${hasMore ? html`<a href="${base}/payments${qs(rows[rows.length - 1].id)}" rel="next">Older payments →</a>` : ''}</p></div>`, { session: s, active: 'payments' });
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
      // Every API process drops its key cache on the NOTIFY; this one need not wait for it.
      services.apiKeys.invalidateAll();
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

  // ---- Shared by webhooks and events -----------------------------------------------------

  const { uiUrl, namespace } = services.config.temporal;
  const workflowUrl = (workflowId: string) => `${uiUrl}/namespaces/${encodeURIComponent(namespace)}/workflows/${encodeURIComponent(workflowId)}`;
  const deps = dispatchDeps(services);

  function notFound(ctx: AppContext, s: DashboardSession, what: string, back: string, active: string) {
    render(ctx, 404, `${what} not found`, html`<div class="card"><h1>${what} not found</h1><p>There is no ${s.livemode ? 'live' : 'sandbox'} ${what.toLowerCase()} with this id in your account.</p><p><a href="${base}/${back}">Back</a></p></div>`, { session: s, active });
  }

  const pretty = (v: unknown) => JSON.stringify(v, null, 2);

  /** One delivery with every attempt's request and response, folded into <details>. */
  function deliveryBlock(s: DashboardSession, d: DeliveryRow & { attempts: AttemptRow[] }, returnTo: string): RawHtml {
    const eventId = publicId('event', d.event_id);
    const endpointId = publicId('webhookEndpoint', d.endpoint_id);
    return html`<div class="delivery" data-testid="delivery" data-status="${d.status}">
      <p><code>${publicId('webhookDelivery', d.id)}</code> · event <a href="${base}/events/${eventId}"><code>${eventId}</code></a> · endpoint <a href="${base}/webhooks/${endpointId}"><code>${endpointId}</code></a>${d.replay ? ' · replay' : ''}</p>
      <p>Status <span class="status" data-testid="delivery-status">${d.status}</span> · ${d.attempt_count} attempt(s) · created ${formatDate(d.created_at)}${d.next_attempt_at ? ` · next attempt ${formatDate(d.next_attempt_at)}` : ''}
        · <a href="${workflowUrl(d.workflow_id)}" data-testid="delivery-workflow-link">workflow ${d.workflow_id}</a></p>
      ${d.attempts.map((a) => html`<details data-testid="attempt" data-attempt="${a.attempt_number}"><summary>Attempt ${a.attempt_number}: ${a.response_status === null ? 'no response' : `HTTP ${a.response_status}`} in ${a.duration_ms} ms at ${formatDate(a.attempted_at)}${a.error ? ` · ${a.error}` : ''}</summary>
        <h3>Request</h3><p>POST <code>${a.request_url}</code></p><pre data-testid="request-headers">${pretty(a.request_headers)}</pre><pre data-testid="request-body">${a.request_body}</pre>
        <h3>Response</h3>${a.response_status === null ? html`<p>None${a.error ? `: ${a.error}` : ''}</p>` : html`<p>Status <span data-testid="response-status">${a.response_status}</span></p><pre data-testid="response-headers">${pretty(a.response_headers ?? {})}</pre><pre data-testid="response-body">${a.response_body ?? ''}</pre>`}
        <p class="muted">Duration ${a.duration_ms} ms · error: ${a.error ?? 'none'}</p></details>`)}
      <form class="inline" method="post" action="${base}/events/${eventId}/replay">${csrfField(s.csrf_token)}<input type="hidden" name="endpoint_id" value="${endpointId}"><input type="hidden" name="return_to" value="${returnTo}">
        <button type="submit" class="secondary" aria-label="Replay ${eventId} to ${endpointId}">Replay</button></form></div>`;
  }

  // ---- Webhook endpoints ------------------------------------------------------------------

  type EndpointForm = { url: string; description: string; events: string[] };

  /** Validates the endpoint form as the API does (same URL rules for the mode). */
  async function parseEndpointForm(form: URLSearchParams, livemode: boolean): Promise<{ values: EndpointForm; errors: Record<string, string>; url?: string; events?: string[] }> {
    const values = { url: (form.get('url') ?? '').trim(), description: (form.get('description') ?? '').trim(), events: form.getAll('enabled_events') };
    const errors: Record<string, string> = {};
    let url: string | undefined;
    if (!values.url || values.url.length > 2048) errors.url = 'Enter the URL that receives the events.';
    else {
      try {
        await assertAllowedWebhookUrl(values.url, livemode);
        url = new URL(values.url).toString();
      } catch (err) {
        if (!(err instanceof UnsafeDestinationError)) throw err;
        errors.url = err.message;
      }
    }
    const events = values.events.includes('*') ? ['*'] : [...new Set(values.events.filter((e) => (EVENT_TYPES as readonly string[]).includes(e)))];
    if (events.length === 0) errors.enabled_events = 'Choose all events or at least one event type.';
    if (values.description.length > 500) errors.description = 'Use at most 500 characters.';
    return { values, errors, url, events };
  }

  function endpointFields(v: Partial<EndpointForm>, e: Record<string, string>): RawHtml {
    const chosen = new Set(v.events ?? ['*']);
    return html`${field('url', 'URL', { type: 'url', value: v.url, error: e.url, attrs: 'required maxlength="2048"', hint: URL_HINT })}
      <fieldset class="checks"><legend>Events to send</legend>${e.enabled_events ? html`<p class="field-error" id="enabled_events-error">${e.enabled_events}</p>` : ''}
        <label><input type="checkbox" name="enabled_events" value="*"${chosen.has('*') ? html` checked` : ''}> All events</label>
        ${EVENT_TYPES.map((t) => html`<label><input type="checkbox" name="enabled_events" value="${t}"${chosen.has(t) ? html` checked` : ''}> ${t}</label>`)}</fieldset>
      ${field('description', 'Description', { value: v.description, error: e.description, attrs: 'maxlength="500"' })}`;
  }

  async function webhooksPage(ctx: AppContext, s: DashboardSession, status: number, form?: { values: EndpointForm; errors: Record<string, string> }) {
    const cursor = typeof ctx.query.cursor === 'string' && isUuid(ctx.query.cursor) ? ctx.query.cursor : undefined;
    const { items, hasMore } = await listEndpoints(db.pool, { ...scopeOf(s), cursor, limit: 20 });
    render(ctx, status, 'Webhooks', html`<div class="card"><h1>${s.livemode ? 'Live' : 'Sandbox'} webhook endpoints</h1>
      ${items.length ? html`<div class="table-wrap"><table><thead><tr><th scope="col">URL</th><th scope="col">Events</th><th scope="col">Description</th><th scope="col">Status</th><th scope="col">Created</th></tr></thead><tbody>
        ${items.map((e) => html`<tr data-testid="endpoint-row"><td><a href="${base}/webhooks/${publicId('webhookEndpoint', e.id)}"><code>${e.url}</code></a></td><td>${e.enabled_events.join(', ')}</td><td>${e.description ?? '—'}</td><td>${e.disabled ? `Disabled${e.disabled_reason === 'gone' ? ' (410 Gone)' : ''}` : 'Enabled'}</td><td>${formatDate(e.created_at)}</td></tr>`)}
        </tbody></table></div>` : html`<p>No ${s.livemode ? 'live' : 'sandbox'} endpoints yet.</p>`}
      <p>${cursor ? html`<a href="${base}/webhooks">Newest</a> · ` : ''}${hasMore ? html`<a href="${base}/webhooks?cursor=${items[items.length - 1].id}" rel="next">Older endpoints →</a>` : ''}</p></div>
      <div class="card"><h2 style="margin-top:0">Add an endpoint</h2>${alertBox(form && Object.keys(form.errors).length ? 'Please correct the fields below.' : undefined)}
      <form method="post" action="${base}/webhooks" novalidate>${csrfField(s.csrf_token)}${endpointFields(form?.values ?? {}, form?.errors ?? {})}
        <button type="submit">Add endpoint</button></form></div>`, { session: s, active: 'webhooks' });
  }

  async function loadEndpoint(s: DashboardSession, id: string, forUpdate = false, q: Queryable = db.pool): Promise<EndpointRow | null> {
    const uuid = parsePublicId('webhookEndpoint', id);
    return uuid ? getEndpoint(q, s.account_id, s.livemode, uuid, { forUpdate }) : null;
  }

  async function endpointPage(ctx: AppContext, s: DashboardSession, endpoint: EndpointRow, status: number, extra: { secret?: string; error?: string; form?: { values: EndpointForm; errors: Record<string, string> } } = {}) {
    const id = publicId('webhookEndpoint', endpoint.id);
    const cursor = typeof ctx.query.cursor === 'string' && isUuid(ctx.query.cursor) ? ctx.query.cursor : undefined;
    const { items, hasMore } = await listDeliveries(db.pool, { endpointId: endpoint.id, cursor, limit: 20 });
    const back = `${base}/webhooks/${id}`;
    const post = (path: string, label: string, cls = 'secondary') => html`<form class="inline" method="post" action="${back}/${path}">${csrfField(s.csrf_token)}<button type="submit" class="${cls}">${label}</button></form>`;
    render(ctx, status, `Endpoint ${endpoint.url}`, html`${extra.secret ? html`<div class="card" role="status"><h1>New signing secret</h1>${signingSecretBox(extra.secret)}</div>` : ''}
      <div class="card"><p><a href="${base}/webhooks">← All endpoints</a></p><h1><code>${endpoint.url}</code></h1>${alertBox(extra.error)}
      <dl><dt>Id</dt><dd><code>${id}</code></dd><dt>Events</dt><dd>${endpoint.enabled_events.join(', ')}</dd><dt>Description</dt><dd>${endpoint.description ?? '—'}</dd>
        <dt>Status</dt><dd data-testid="endpoint-status">${endpoint.disabled ? `disabled${endpoint.disabled_reason === 'gone' ? ' (the receiver answered 410 Gone)' : ''}` : 'enabled'}</dd><dt>Created</dt><dd>${formatDate(endpoint.created_at)}</dd>
        <dt>Signing secret</dt><dd>Shown only when created or rotated. Rotating keeps the old secret signing for 24 hours.</dd></dl>
      <p>${endpoint.disabled ? post('enable', 'Enable') : post('disable', 'Disable')} ${post('rotate-secret', 'Rotate secret')}
        ${s.livemode ? '' : post('test-event', 'Send test event')} ${post('delete', 'Delete endpoint')}</p>
      ${s.livemode ? '' : html`<p class="muted">A test event is a sandbox <code>payment.succeeded</code> (or the endpoint's first chosen type) whose object has <code>"test_event": true</code>; it is delivered to this endpoint only.</p>`}</div>
      <div class="card"><h2 style="margin-top:0">Deliveries</h2>${items.length ? items.map((d) => deliveryBlock(s, d, 'endpoint')) : html`<p>No deliveries yet.</p>`}
        <p>${cursor ? html`<a href="${back}">Newest</a> · ` : ''}${hasMore ? html`<a href="${back}?cursor=${items[items.length - 1].id}" rel="next">Older deliveries →</a>` : ''}</p></div>
      <div class="card"><h2 style="margin-top:0">Edit</h2>${alertBox(extra.form ? 'Please correct the fields below.' : undefined)}
        <form method="post" action="${back}" novalidate>${csrfField(s.csrf_token)}${endpointFields(extra.form?.values ?? { url: endpoint.url, description: endpoint.description ?? '', events: endpoint.enabled_events }, extra.form?.errors ?? {})}
        <button type="submit">Save</button></form></div>`, { session: s, active: 'webhooks' });
  }

  router.get('/webhooks', page((ctx, s) => webhooksPage(ctx, s, 200)));
  router.post(
    '/webhooks',
    action(async (ctx, s, form) => {
      const parsed = await parseEndpointForm(form, s.livemode);
      if (Object.keys(parsed.errors).length) return webhooksPage(ctx, s, 400, parsed);
      const { endpoint, secret } = await db.withTransaction((tx) =>
        createEndpoint(tx, { ...scopeOf(s), url: parsed.url!, enabledEvents: parsed.events!, description: parsed.values.description || null }),
      );
      // The secret is in this response only; the endpoint page never shows it.
      render(ctx, 201, 'Endpoint added', html`<div class="card" role="status"><h1>Endpoint added</h1><p><code>${endpoint.url}</code></p>${signingSecretBox(secret)}
        <p><a href="${base}/webhooks/${publicId('webhookEndpoint', endpoint.id)}">Go to the endpoint</a> · <a href="${base}/webhooks">All endpoints</a></p></div>`, { session: s, active: 'webhooks' });
    }),
  );
  router.get(
    '/webhooks/:id',
    page(async (ctx, s) => {
      const endpoint = await loadEndpoint(s, String(ctx.params.id));
      if (!endpoint) return notFound(ctx, s, 'Endpoint', 'webhooks', 'webhooks');
      await endpointPage(ctx, s, endpoint, 200);
    }),
  );

  /** Endpoint forms: the endpoint locked for the change, or 404. */
  function endpointAction(handler: (ctx: AppContext, s: DashboardSession, endpoint: EndpointRow, tx: Queryable, form: URLSearchParams) => Promise<void>) {
    return action(async (ctx, s, form) => {
      const found = await db.withTransaction(async (tx) => {
        const endpoint = await loadEndpoint(s, String(ctx.params.id), true, tx);
        if (!endpoint) return false;
        await handler(ctx, s, endpoint, tx, form);
        return true;
      });
      if (!found) notFound(ctx, s, 'Endpoint', 'webhooks', 'webhooks');
    });
  }
  const toEndpoint = (ctx: AppContext, endpoint: EndpointRow) => {
    ctx.status = 303;
    ctx.redirect(`${base}/webhooks/${publicId('webhookEndpoint', endpoint.id)}`);
  };

  router.post(
    '/webhooks/:id',
    endpointAction(async (ctx, s, endpoint, tx, form) => {
      const parsed = await parseEndpointForm(form, s.livemode);
      if (Object.keys(parsed.errors).length) return endpointPage(ctx, s, endpoint, 400, { form: parsed });
      await updateEndpoint(tx, endpoint.id, { url: parsed.url, enabledEvents: parsed.events, description: parsed.values.description || null });
      toEndpoint(ctx, endpoint);
    }),
  );
  router.post('/webhooks/:id/disable', endpointAction(async (ctx, _s, endpoint, tx) => toEndpoint(ctx, await updateEndpoint(tx, endpoint.id, { disabled: true }))));
  router.post('/webhooks/:id/enable', endpointAction(async (ctx, _s, endpoint, tx) => toEndpoint(ctx, await updateEndpoint(tx, endpoint.id, { disabled: false }))));
  router.post(
    '/webhooks/:id/delete',
    endpointAction(async (ctx, _s, endpoint, tx) => {
      await deleteEndpoint(tx, endpoint.id);
      ctx.status = 303;
      ctx.redirect(`${base}/webhooks`);
    }),
  );
  router.post(
    '/webhooks/:id/rotate-secret',
    action(async (ctx, s) => {
      const rotated = await db.withTransaction(async (tx) => {
        const endpoint = await loadEndpoint(s, String(ctx.params.id), true, tx);
        return endpoint ? { endpoint, secret: await rotateSecret(tx, endpoint.id) } : null;
      });
      if (!rotated) return notFound(ctx, s, 'Endpoint', 'webhooks', 'webhooks');
      // Rendered after the commit, in this response only.
      await endpointPage(ctx, s, rotated.endpoint, 200, { secret: rotated.secret });
    }),
  );
  router.post(
    '/webhooks/:id/test-event',
    action(async (ctx, s) => {
      const endpoint = await loadEndpoint(s, String(ctx.params.id));
      if (!endpoint || s.livemode) return notFound(ctx, s, 'Endpoint', 'webhooks', 'webhooks');
      if (endpoint.disabled) return endpointPage(ctx, s, endpoint, 409, { error: 'This endpoint is disabled: enable it to send a test event.' });
      const type = (endpoint.enabled_events.find((t) => t !== '*') ?? 'payment.succeeded') as EventType;
      // A real sandbox event (so its deliveries, attempts and replay work as for any other), marked
      // as a test, and sent to this endpoint only.
      const event = await db.withTransaction((tx) =>
        insertEvent(tx, { ...scopeOf(s), type, object: { id: `pmt_test_${newUuid()}`, object: 'payment', test_event: true, amount: 1000, currency: 'USD', status: type.split('.')[1], livemode: false } }),
      );
      await dispatchToEndpoint(deps, event, endpoint);
      toEndpoint(ctx, endpoint);
    }),
  );

  // ---- Events ------------------------------------------------------------------------------

  /** A yyyy-mm-dd date as Unix seconds at the start (or the end) of that UTC day. */
  const dateToSeconds = (v: unknown, endOfDay: boolean) => {
    if (typeof v !== 'string' || !/^\d{4}-\d{2}-\d{2}$/.test(v)) return undefined;
    const ms = Date.parse(`${v}T00:00:00Z`);
    return Number.isNaN(ms) ? undefined : Math.floor(ms / 1000) + (endOfDay ? 86_399 : 0);
  };

  router.get(
    '/events',
    page(async (ctx, s) => {
      const type = EVENT_TYPES.find((t) => t === ctx.query.type);
      const after = typeof ctx.query.created_after === 'string' ? ctx.query.created_after : '';
      const before = typeof ctx.query.created_before === 'string' ? ctx.query.created_before : '';
      const cursor = typeof ctx.query.cursor === 'string' && isUuid(ctx.query.cursor) ? ctx.query.cursor : undefined;
      const { items, hasMore } = await listEvents(db.pool, {
        ...scopeOf(s),
        type,
        createdAfter: dateToSeconds(after, false),
        createdBefore: dateToSeconds(before, true),
        cursor,
        limit: 20,
      });
      const filters = { ...(type ? { type } : {}), ...(dateToSeconds(after, false) !== undefined ? { created_after: after } : {}), ...(dateToSeconds(before, true) !== undefined ? { created_before: before } : {}) };
      const qs = (extra: Record<string, string> = {}) => {
        const q = new URLSearchParams({ ...filters, ...extra }).toString();
        return q ? `?${q}` : '';
      };
      render(ctx, 200, 'Events', html`<div class="card"><h1>Events</h1>
        <form method="get" action="${base}/events"><div class="grid2">
          <div><label for="type">Type</label><select id="type" name="type"><option value="">All</option>${EVENT_TYPES.map((t) => html`<option value="${t}"${t === type ? html` selected` : ''}>${t}</option>`)}</select></div>
          ${field('created_after', 'Created on or after', { type: 'date', value: filters.created_after ?? '' })}${field('created_before', 'Created on or before', { type: 'date', value: filters.created_before ?? '' })}</div>
          <button type="submit" class="secondary" style="display:inline-block;width:auto">Filter</button></form>
        ${items.length ? html`<div class="table-wrap"><table><caption class="muted" style="text-align:left">Newest first (dates in UTC)</caption><thead><tr><th scope="col">Event</th><th scope="col">Type</th><th scope="col">Object</th><th scope="col">Created</th></tr></thead><tbody>
          ${items.map((e) => html`<tr data-testid="event-row"><td><a href="${base}/events/${publicId('event', e.id)}"><code>${publicId('event', e.id)}</code></a></td><td>${e.type}</td><td><code>${String(e.data.object.id ?? '')}</code>${e.data.object.test_event === true ? ' (test event)' : ''}</td><td>${formatDate(e.created_at)}</td></tr>`)}
          </tbody></table></div>` : html`<p>No ${s.livemode ? 'live' : 'sandbox'} events match.</p>`}
        <p>${cursor ? html`<a href="${base}/events${qs()}">Newest</a> · ` : ''}${hasMore ? html`<a href="${base}/events${qs({ cursor: items[items.length - 1].id })}" rel="next">Older events →</a>` : ''}</p></div>`, { session: s, active: 'events' });
    }),
  );

  async function loadEvent(s: DashboardSession, id: string) {
    const uuid = parsePublicId('event', id);
    return uuid ? getEvent(db.pool, s.account_id, s.livemode, uuid) : null;
  }

  router.get(
    '/events/:id',
    page(async (ctx, s) => {
      const event = await loadEvent(s, String(ctx.params.id));
      if (!event) return notFound(ctx, s, 'Event', 'events', 'events');
      const { items, hasMore } = await listDeliveries(db.pool, { eventId: event.id, limit: 50 });
      const id = publicId('event', event.id);
      render(ctx, 200, `Event ${id}`, html`<div class="card"><p><a href="${base}/events">← All events</a></p><h1>${event.type}</h1>
        <p><code>${id}</code> · ${formatDate(event.created_at)}</p><pre data-testid="event-json">${pretty(serializeEvent(event))}</pre></div>
        <div class="card"><h2 style="margin-top:0">Deliveries</h2>${items.length ? items.map((d) => deliveryBlock(s, d, 'event')) : html`<p>No deliveries: no enabled endpoint subscribed to this type when it happened.</p>`}
        ${hasMore ? html`<p class="muted">Showing the newest 50 deliveries.</p>` : ''}</div>`, { session: s, active: 'events' });
    }),
  );

  router.post(
    '/events/:id/replay',
    action(async (ctx, s, form) => {
      const event = await loadEvent(s, String(ctx.params.id));
      const endpoint = await loadEndpoint(s, form.get('endpoint_id') ?? '');
      if (!event || !endpoint) return notFound(ctx, s, event ? 'Endpoint' : 'Event', 'events', 'events');
      if (endpoint.disabled) {
        return render(ctx, 409, 'Endpoint disabled', html`<div class="card"><h1>This endpoint is disabled</h1>${alertBox('Enable it first, then replay.')}<p><a href="${base}/webhooks/${publicId('webhookEndpoint', endpoint.id)}">Back to the endpoint</a></p></div>`, { session: s, active: 'webhooks' });
      }
      await startReplay(deps, event, endpoint);
      ctx.status = 303;
      ctx.redirect(form.get('return_to') === 'endpoint' ? `${base}/webhooks/${publicId('webhookEndpoint', endpoint.id)}` : `${base}/events/${publicId('event', event.id)}`);
    }),
  );

  // ---- Payment links -----------------------------------------------------------------------

  async function linksPage(ctx: AppContext, s: DashboardSession, status: number, form?: { values: Record<string, string>; errors: Record<string, string> }) {
    const cursor = typeof ctx.query.cursor === 'string' && isUuid(ctx.query.cursor) ? ctx.query.cursor : undefined;
    const { rows, hasMore } = await listPaymentLinks(db.pool, scopeOf(s), { limit: 20, cursor });
    const v = form?.values ?? {};
    const e = form?.errors ?? {};
    const currency = v.currency ?? 'EUR';
    render(ctx, status, 'Payment links', html`<div class="card"><h1>${s.livemode ? 'Live' : 'Sandbox'} payment links</h1>
      ${rows.length ? html`<div class="table-wrap"><table><thead><tr><th scope="col">Title</th><th scope="col">Amount</th><th scope="col">Link</th><th scope="col">Created</th><th scope="col">Status</th></tr></thead><tbody>
        ${rows.map((l) => html`<tr data-testid="link-row"><td>${l.title}</td><td>${formatAmount(l.amount, l.currency)}</td><td><a href="${paymentLinkUrl(services.config.publicBaseUrl, l.id)}"><code>${publicId('paymentLink', l.id)}</code></a></td><td>${formatDate(l.created_at)}</td>
          <td>${l.active ? html`Active <form class="inline" method="post" action="${base}/payment-links/${publicId('paymentLink', l.id)}/deactivate">${csrfField(s.csrf_token)}<button type="submit" class="secondary" aria-label="Deactivate ${l.title}">Deactivate</button></form>` : 'Deactivated'}</td></tr>`)}
        </tbody></table></div>` : html`<p>No ${s.livemode ? 'live' : 'sandbox'} payment links yet.</p>`}
      <p>${cursor ? html`<a href="${base}/payment-links">Newest</a> · ` : ''}${hasMore ? html`<a href="${base}/payment-links?cursor=${rows[rows.length - 1].id}" rel="next">Older links →</a>` : ''}</p></div>
      <div class="card"><h2 style="margin-top:0">Create a payment link</h2>${alertBox(Object.keys(e).length ? 'Please correct the fields below.' : undefined)}
      <form method="post" action="${base}/payment-links" novalidate>${csrfField(s.csrf_token)}
        ${field('title', 'Title', { value: v.title, error: e.title, attrs: 'required maxlength="200"' })}
        <div class="grid2">${field('amount', 'Amount', { value: v.amount, error: e.amount, attrs: 'required inputmode="decimal"', hint: 'In major units, e.g. 12.50 (JPY has no decimals).' })}
        <div><label for="currency">Currency</label><select id="currency" name="currency">${PRESENTMENT_CURRENCIES.map((c) => html`<option value="${c}"${c === currency ? html` selected` : ''}>${c}</option>`)}</select></div></div>
        <p class="muted">Every payment method is offered; payouts go to your bank account in the link's currency.</p>
        <button type="submit">Create link</button></form></div>`, { session: s, active: 'payment-links' });
  }

  router.get('/payment-links', page((ctx, s) => linksPage(ctx, s, 200)));
  router.post(
    '/payment-links',
    action(async (ctx, s, form) => {
      const values = { title: (form.get('title') ?? '').trim(), amount: (form.get('amount') ?? '').trim(), currency: form.get('currency') ?? '' };
      const errors: Record<string, string> = {};
      const currency = PRESENTMENT_CURRENCIES.find((c) => c === values.currency);
      if (!currency) errors.currency = 'Choose a currency.';
      const amount = currency ? toMinorUnits(values.amount, CURRENCY_EXPONENT[currency]) : null;
      if (currency && amount === null) errors.amount = CURRENCY_EXPONENT[currency] ? `Enter an amount with at most ${CURRENCY_EXPONENT[currency]} decimals, e.g. 12.50.` : 'Enter a whole amount (no decimals).';
      // The API's own rules (title 1–200 characters, amount 1–99,999,999 minor units).
      const parsed = PaymentLinkCreateSchema.safeParse({ title: values.title, amount: amount ?? 0, currency: currency ?? 'EUR' });
      if (!parsed.success) {
        for (const issue of parsed.error.issues) {
          const param = String(issue.path[0]);
          if (param === 'title') errors.title ??= 'Enter a title (1–200 characters).';
          if (param === 'amount') errors.amount ??= 'Enter an amount greater than zero and below the maximum.';
        }
      }
      if (Object.keys(errors).length || !parsed.success) return linksPage(ctx, s, 400, { values, errors });
      await insertPaymentLink(db.pool, { ...scopeOf(s), title: parsed.data.title, ...resolvePaymentSettings(parsed.data) });
      ctx.status = 303;
      ctx.redirect(`${base}/payment-links`);
    }),
  );
  router.post(
    '/payment-links/:id/deactivate',
    action(async (ctx, s) => {
      const uuid = parsePublicId('paymentLink', String(ctx.params.id));
      const link = uuid ? await deactivatePaymentLink(db.pool, scopeOf(s), uuid) : null;
      if (!link) return notFound(ctx, s, 'Payment link', 'payment-links', 'payment-links');
      ctx.status = 303;
      ctx.redirect(`${base}/payment-links`);
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

const URL_HINT = 'Sandbox: http or https, any host. Live: https to a public address only.';

/** Major units as typed ("12.5", "12.50", "1200") to integer minor units, or null. */
export function toMinorUnits(input: string, exponent: number): number | null {
  const m = /^(\d{1,12})(?:[.,](\d+))?$/.exec(input.trim());
  if (!m || (m[2] ?? '').length > exponent) return null;
  return Number(m[1]) * 10 ** exponent + Number((m[2] ?? '').padEnd(exponent, '0') || '0');
}

/** A webhook signing secret, in the one response that reveals it. */
function signingSecretBox(secret: string): RawHtml {
  return html`<div class="secret"><label for="signing-secret">Signing secret (shown once: copy it now)</label>
    <input id="signing-secret" readonly value="${secret}" data-testid="signing-secret" spellcheck="false" autocomplete="off">
    <p class="muted">Verify the Service-Signature header with it. It will not be shown again; rotate it to get a new one.</p></div>`;
}

function secretBox(secret: string): RawHtml {
  return html`<div class="secret"><label for="secret-key">Secret key (shown once: copy it now)</label>
    <input id="secret-key" readonly value="${secret}" data-testid="secret-key" spellcheck="false" autocomplete="off">
    <p class="muted">We store only a hash of this key. It will not be shown again.</p></div>`;
}
