import crypto from 'node:crypto';
import Router from '@koa/router';
import getRawBody from 'raw-body';
import { convert, formatAmount, type Currency } from '../domain/money';
import { getPaymentById, type PaymentRow } from '../domain/payments';
import { ApiError } from '../http/errors';
import type { AppContext, AppServices, AppState } from '../http/context';
import { parsePublicId } from '../ids';
import { respondToChallenge, submitAttempt, toAttempt, type CheckoutInput } from '../payments/service';
import type { PaymentMethodType } from '../temporal/contract';
import { html, page, raw, type RawHtml } from './html';

/**
 * The hosted checkout at checkout_url. Server-rendered plain forms, so it works without
 * JavaScript; a small script only adds live status while a payment is processing.
 * Every form drives the same service functions as the API's sandbox test helpers.
 */
export function checkoutRouter(services: AppServices): Router<AppState> {
  const router = new Router<AppState>({ prefix: `${services.config.basePath}/checkout` });

  async function load(ctx: AppContext): Promise<PaymentRow | null> {
    const uuid = parsePublicId('payment', String(ctx.params.id));
    return uuid ? getPaymentById(services.db.pool, uuid) : null;
  }

  function notFound(ctx: AppContext) {
    ctx.status = 404;
    ctx.type = 'html';
    ctx.body = page('Payment not found', html`<div class="card"><h1>Payment not found</h1><p>This checkout link is not valid.</p></div>`);
  }

  const selfUrl = (row: PaymentRow, error?: string) =>
    `${services.config.basePath}/checkout/pmt_${row.id}${error ? `?error=${encodeURIComponent(error)}` : ''}`;

  router.get('/:id', async (ctx: AppContext) => {
    const row = await load(ctx);
    if (!row) return notFound(ctx);
    const nonce = crypto.randomBytes(12).toString('base64');
    ctx.set('Content-Security-Policy', `default-src 'none'; style-src 'unsafe-inline'; script-src 'nonce-${nonce}'; connect-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'`);
    ctx.set('Cache-Control', 'no-store');
    ctx.type = 'html';
    ctx.body = renderCheckout(row, services, { error: typeof ctx.query.error === 'string' ? ctx.query.error : undefined, nonce });
  });

  router.get('/:id/status', async (ctx: AppContext) => {
    const row = await load(ctx);
    if (!row) return notFound(ctx);
    ctx.set('Cache-Control', 'no-store');
    ctx.body = { status: row.status, next_action: row.next_action, payout_status: row.payout_status };
  });

  /** Runs one form action; input errors come back to the page as ?error=<code>, never as a 500. */
  async function act(ctx: AppContext, fn: (row: PaymentRow, form: URLSearchParams) => Promise<unknown>) {
    const row = await load(ctx);
    if (!row) return notFound(ctx);
    let form: URLSearchParams;
    try {
      form = new URLSearchParams(await getRawBody(ctx.req, { limit: '16kb', encoding: 'utf8' }));
    } catch {
      ctx.status = 303;
      return ctx.redirect(selfUrl(row, 'invalid_form'));
    }
    try {
      await fn(row, form);
      ctx.status = 303;
      ctx.redirect(selfUrl(row));
    } catch (err) {
      if (!(err instanceof ApiError) || err.status >= 500) throw err;
      ctx.status = 303;
      ctx.redirect(selfUrl(row, err.code));
    }
  }

  router.post('/:id/card', (ctx: AppContext) =>
    act(ctx, async (row, form) => {
      checkExpiry(form.get('exp') ?? '');
      if (!/^\d{3,4}$/.test(form.get('cvc') ?? '')) throw new ApiError(400, 'invalid_request_error', 'invalid_cvc', 'Your card’s security code is invalid.');
      await submitAttempt(services, row, toAttempt(row, { method: 'card', card_number: form.get('card_number') ?? '' }));
    }),
  );
  router.post('/:id/challenge', (ctx: AppContext) =>
    act(ctx, async (row, form) => {
      await respondToChallenge(services, row, form.get('result') === 'approve' ? 'approve' : 'fail');
    }),
  );
  router.post('/:id/wallet', (ctx: AppContext) =>
    act(ctx, async (row, form) => {
      const method = form.get('method') === 'google_pay' ? 'google_pay' : 'apple_pay';
      await submitAttempt(services, row, toAttempt(row, { method, wallet: form.get('result') === 'decline' ? 'decline' : 'approve' }));
    }),
  );
  router.post('/:id/transfer', (ctx: AppContext) =>
    act(ctx, async (row, form) => {
      if (row.livemode) throw new ApiError(400, 'invalid_request_error', 'sandbox_only', 'Transfers are simulated only in the sandbox.');
      const input: CheckoutInput = { method: form.get('method') === 'usdc' ? 'usdc' : 'sepa', outcome: form.get('outcome') === 'return' ? 'return' : 'confirm' };
      await submitAttempt(services, row, toAttempt(row, input));
    }),
  );
  return router;
}

function checkExpiry(exp: string): void {
  const m = /^\s*(\d{1,2})\s*\/\s*(\d{2}|\d{4})\s*$/.exec(exp);
  const invalid = () => new ApiError(400, 'invalid_request_error', 'invalid_expiry', 'Your card’s expiry date is invalid.');
  if (!m) throw invalid();
  const month = Number(m[1]);
  const year = m[2].length === 2 ? 2000 + Number(m[2]) : Number(m[2]);
  if (month < 1 || month > 12) throw invalid();
  const now = new Date();
  if (year < now.getUTCFullYear() || (year === now.getUTCFullYear() && month < now.getUTCMonth() + 1)) {
    throw new ApiError(400, 'invalid_request_error', 'expired_card', 'Your card has expired.');
  }
}

/** Messages shown to the payer, by error code. */
const PAYER_MESSAGES: Record<string, string> = {
  incorrect_number: 'Your card number is incorrect.',
  invalid_expiry: 'Your card’s expiry date is invalid.',
  invalid_cvc: 'Your card’s security code is invalid.',
  expired_card: 'Your card has expired.',
  parameter_invalid: 'This payment method is not available for this payment.',
  payment_unexpected_state: 'This payment can no longer be changed.',
  invalid_form: 'The form could not be read. Please try again.',
};

const METHOD_LABEL: Record<PaymentMethodType, string> = { card: 'Card', apple_pay: 'Apple Pay', google_pay: 'Google Pay', usdc: 'USDC', sepa: 'SEPA transfer' };

export function renderCheckout(row: PaymentRow, services: AppServices, opts: { error?: string; nonce: string }): string {
  const amount = formatAmount(row.amount, row.currency);
  const base = `${services.config.basePath}/checkout/pmt_${row.id}`;
  const header = html`<div class="card"><p class="muted">Pay</p><p class="amount" data-testid="amount">${amount}</p>
    ${row.livemode ? '' : html`<p class="banner" role="note">Sandbox mode: no real money moves. Test card 4242 4242 4242 4242.</p>`}</div>`;

  if (row.status === 'succeeded') {
    return page('Payment successful', html`${header}<div class="card" role="status"><h1 class="success">✓ Payment successful</h1>
      <p>${amount} paid${row.payment_method?.last4 ? html` with card •••• ${row.payment_method.last4}` : row.payment_method ? html` with ${METHOD_LABEL[row.payment_method.type]}` : ''}.</p>
      <p class="muted">Reference pmt_${row.id}</p></div>`);
  }
  if (row.status === 'canceled') {
    const why = row.cancellation_reason === 'expired' ? 'This checkout has expired.' : 'This payment was canceled by the merchant.';
    return page('Payment canceled', html`${header}<div class="card" role="status"><h1>Payment canceled</h1><p>${why} No money was taken.</p></div>`);
  }
  if (row.status === 'processing') {
    const transfer = row.payment_method?.type === 'usdc' || row.payment_method?.type === 'sepa';
    const script = `(function poll(){fetch(${JSON.stringify(`${base}/status`)},{cache:'no-store'}).then(function(r){return r.json()}).then(function(s){if(s.status!=='processing'){location.reload()}else{setTimeout(poll,1000)}},function(){setTimeout(poll,2000)})})();`;
    return page(
      'Processing payment',
      html`${header}<div class="card" role="status" aria-live="polite"><h1>Processing your payment…</h1>
        <p>${transfer ? 'We are waiting for your transfer to be confirmed. This page updates by itself.' : 'This page updates by itself.'}</p></div>`,
      { refreshSeconds: 3, nonce: opts.nonce, script },
    );
  }

  const errorMessage = opts.error ? (PAYER_MESSAGES[opts.error] ?? 'Something went wrong. Please try again.') : row.last_payment_error?.message;
  const alert = errorMessage ? html`<div class="alert" role="alert" data-testid="error">${errorMessage}${!opts.error && row.last_payment_error ? ' Please try again or use another method.' : ''}</div>` : '';

  if (row.next_action?.type === 'challenge') {
    // The 3-D Secure style challenge, inline on the same page: no redirect to a third party.
    return page('Confirm your payment', html`${header}<section class="card" aria-labelledby="challenge-title">
      <h1 id="challenge-title">Confirm this payment with your bank</h1>
      <p>Your bank asks you to confirm the payment of <strong>${amount}</strong> with card •••• ${row.payment_method?.last4 ?? ''}.</p>
      ${row.livemode ? '' : html`<p class="muted">Sandbox: choose the outcome of the challenge.</p>`}
      <form method="post" action="${base}/challenge"><input type="hidden" name="result" value="approve"><button type="submit">Approve</button></form>
      <form method="post" action="${base}/challenge"><input type="hidden" name="result" value="fail"><button type="submit" class="secondary">Fail authentication</button></form>
      <p class="muted">The challenge expires 10 minutes after it starts.</p></section>`);
  }

  const sections: RawHtml[] = [];
  if (row.methods.includes('card')) {
    sections.push(html`<section class="card"><form method="post" action="${base}/card" data-submit-label="Processing…"><fieldset><legend>Pay by card</legend>
      <label for="card_number">Card number</label><input id="card_number" name="card_number" inputmode="numeric" autocomplete="cc-number" required placeholder="4242 4242 4242 4242">
      <div class="row"><div><label for="exp">Expiry (MM/YY)</label><input id="exp" name="exp" autocomplete="cc-exp" required placeholder="12/34"></div>
      <div><label for="cvc">CVC</label><input id="cvc" name="cvc" inputmode="numeric" autocomplete="cc-csc" required placeholder="123"></div></div>
      <label for="name">Name on card</label><input id="name" name="name" autocomplete="cc-name">
      <button type="submit">Pay ${amount}</button></fieldset></form></section>`);
  }
  for (const wallet of ['apple_pay', 'google_pay'] as const) {
    if (!row.methods.includes(wallet)) continue;
    sections.push(html`<section class="card" aria-labelledby="${wallet}-title"><h2 id="${wallet}-title" class="amount" style="font-size:1.05rem">${METHOD_LABEL[wallet]}</h2>
      ${row.livemode ? '' : html`<p class="muted">Sandbox wallet sheet: approve or decline the payment.</p>`}
      <form method="post" action="${base}/wallet"><input type="hidden" name="method" value="${wallet}"><input type="hidden" name="result" value="approve"><button type="submit">Pay with ${METHOD_LABEL[wallet]}</button></form>
      ${row.livemode ? '' : html`<form method="post" action="${base}/wallet"><input type="hidden" name="method" value="${wallet}"><input type="hidden" name="result" value="decline"><button type="submit" class="secondary">Decline in ${METHOD_LABEL[wallet]}</button></form>`}</section>`);
  }
  if (row.methods.includes('usdc')) {
    const usdc = convert(row.amount, row.currency as Currency, 'USDC');
    sections.push(html`<section class="card" aria-labelledby="usdc-title"><h2 id="usdc-title" class="amount" style="font-size:1.05rem">Pay with USDC</h2>
      <dl><dt>Network</dt><dd>Ethereum (ERC-20)</dd><dt>Address</dt><dd data-testid="usdc-address">${depositAddress(row.id)}</dd><dt>Amount</dt><dd>${formatAmount(usdc.amount, 'USDC')}</dd></dl>
      ${transferSimulation(row, base, 'usdc')}</section>`);
  }
  if (row.methods.includes('sepa')) {
    const eur = convert(row.amount, row.currency as Currency, 'EUR');
    sections.push(html`<section class="card" aria-labelledby="sepa-title"><h2 id="sepa-title" class="amount" style="font-size:1.05rem">Pay by SEPA transfer</h2>
      <dl><dt>IBAN</dt><dd>DE02 1001 0010 9307 1186 03</dd><dt>BIC</dt><dd>PBNKDEFF</dd><dt>Reference</dt><dd data-testid="sepa-reference">${sepaReference(row.id)}</dd><dt>Amount</dt><dd>${formatAmount(eur.amount, 'EUR')}</dd></dl>
      ${transferSimulation(row, base, 'sepa')}</section>`);
  }
  const script = `document.querySelectorAll('form[data-submit-label]').forEach(function(f){f.addEventListener('submit',function(){var b=f.querySelector('button');b.disabled=true;b.textContent=f.getAttribute('data-submit-label')})});`;
  return page(`Pay ${amount}`, html`${header}${alert}${sections}`, { nonce: opts.nonce, script });
}

function transferSimulation(row: PaymentRow, base: string, method: 'usdc' | 'sepa'): RawHtml {
  if (row.livemode) return raw('<p class="muted">Your payment is confirmed automatically once the transfer arrives.</p>');
  return html`<form method="post" action="${base}/transfer"><input type="hidden" name="method" value="${method}"><button type="submit" class="secondary">Simulate transfer (sandbox)</button></form>`;
}

/** Deterministic per payment, so the page shows the same details on every load. */
function depositAddress(paymentId: string): string {
  return `0x${crypto.createHash('sha256').update(`usdc:${paymentId}`).digest('hex').slice(0, 40)}`;
}
function sepaReference(paymentId: string): string {
  return `PMT-${paymentId.replace(/-/g, '').slice(-12).toUpperCase()}`;
}
