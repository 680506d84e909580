import Router from '@koa/router';
import type { AppContext, AppServices, AppState } from '../http/context';
import { toApiError } from '../http/errors';
import { formatAmount } from '../domain/money';
import { getPaymentLinkForPage, type PaymentLinkRow } from '../domain/payment-links';
import { checkoutUrl } from '../domain/payments';
import { parsePublicId } from '../ids';
import { createPayment } from '../payments/service';

/**
 * The hosted payment-link page, public (the plink_ id is the only credential).
 * GET shows the title, the amount and a plain "Pay" form; POST creates a new payment for this
 * payer and sends them to its checkout page. Plain server-rendered HTML: it works without JavaScript.
 */
export function paymentLinkPages(services: AppServices): Router<AppState> {
  const router = new Router<AppState>({ prefix: services.config.basePath });

  router.get('/links/:id', async (ctx: AppContext) => {
    await renderSafely(ctx, services, async () => {
      const uuid = parsePublicId('paymentLink', ctx.params.id);
      const link = uuid ? await getPaymentLinkForPage(services.db.pool, uuid) : null;
      if (!link || !link.active) return inactivePage(ctx, link);
      send(ctx, 200, linkPage(link));
    });
  });

  router.post('/links/:id', async (ctx: AppContext) => {
    await renderSafely(ctx, services, async () => {
      const uuid = parsePublicId('paymentLink', ctx.params.id);
      if (!uuid) return inactivePage(ctx, null);
      const after: Array<() => Promise<void>> = [];
      const { link, payment } = await services.db.withTransaction(async (tx) => {
        // FOR SHARE: a deactivation that commits before this payment would have made us see active = false.
        const link = await getPaymentLinkForPage(tx, uuid, { forShare: true });
        if (!link || !link.active) return { link, payment: null };
        const payment = await createPayment(services, tx, (fn) => after.push(fn), {
          accountId: link.account_id,
          livemode: link.livemode,
          amount: link.amount,
          currency: link.currency,
          methods: link.methods,
          payoutType: link.payout_type,
          payoutCurrency: link.payout_currency,
          metadata: link.metadata,
          paymentLinkId: link.id,
        });
        return { link, payment };
      });
      if (!payment) return inactivePage(ctx, link);
      for (const fn of after) {
        // The payment is committed; if its workflow start fails here, the sweep starts it.
        await fn().catch((err: Error) => ctx.state.log.warn({ err: err.message }, 'after-commit work failed; the sweep will retry it'));
      }
      ctx.status = 303;
      ctx.redirect(checkoutUrl(services.config.publicBaseUrl, payment.id));
    });
  });

  return router;
}

/** A browser gets an HTML page for every outcome, never the API's JSON error body. */
async function renderSafely(ctx: AppContext, services: AppServices, fn: () => Promise<void>): Promise<void> {
  setPageHeaders(ctx, services);
  try {
    await fn();
  } catch (err) {
    const apiError = toApiError(err);
    ctx.state.log.error({ err: (err as Error)?.message, status: apiError.status }, 'payment link page failed');
    send(
      ctx,
      apiError.status,
      page('Something went wrong', `<h1>Something went wrong</h1><p>We could not load this payment link. Please try again in a moment.</p><p class="muted">Reference: ${escapeHtml(ctx.state.requestId)}</p>`),
    );
  }
}

function setPageHeaders(ctx: AppContext, services: AppServices): void {
  // Deactivation must take effect at once, so no cache may keep an old "Pay" page.
  ctx.set('Cache-Control', 'no-store');
  ctx.set('X-Content-Type-Options', 'nosniff');
  ctx.set('Referrer-Policy', 'no-referrer');
  // No scripts at all; the form may only post here (the 303 goes to the checkout under the public URL).
  ctx.set(
    'Content-Security-Policy',
    `default-src 'none'; style-src 'unsafe-inline'; form-action 'self' ${new URL(services.config.publicBaseUrl).origin}; frame-ancestors 'none'; base-uri 'none'`,
  );
}

function send(ctx: AppContext, status: number, html: string): void {
  ctx.status = status;
  ctx.type = 'text/html; charset=utf-8';
  ctx.body = html;
}

/** 410 for a deactivated link, 404 for one that never existed; neither creates anything. */
function inactivePage(ctx: AppContext, link: PaymentLinkRow | null): void {
  send(
    ctx,
    link ? 410 : 404,
    page(
      'Payment link inactive',
      `<h1>This payment link is no longer active</h1><p>${link ? 'The seller has turned this link off.' : 'We could not find this payment link.'} Nothing has been charged. Please contact the seller for a new link.</p>`,
    ),
  );
}

function linkPage(link: PaymentLinkRow & { account_name: string }): string {
  const amount = formatAmount(link.amount, link.currency);
  return page(
    `${link.title} – ${amount}`,
    `${link.livemode ? '' : '<p class="badge">Sandbox: no real money moves</p>'}
    <p class="muted">${escapeHtml(link.account_name)}</p>
    <h1>${escapeHtml(link.title)}</h1>
    <p class="amount"><span class="visually-hidden">Amount: </span>${escapeHtml(amount)}</p>
    <form method="post">
      <button type="submit">Pay</button>
    </form>
    <p class="muted">You choose how to pay on the next page.</p>`,
  );
}

function page(title: string, main: string): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="robots" content="noindex">
<title>${escapeHtml(title)}</title>
<style>
  :root { color-scheme: light dark; --fg: #1a1a1a; --bg: #f4f5f7; --card: #fff; --muted: #555; --accent: #0b57d0; }
  @media (prefers-color-scheme: dark) { :root { --fg: #f0f0f0; --bg: #121212; --card: #1e1e1e; --muted: #b8b8b8; --accent: #8ab4f8; } }
  * { box-sizing: border-box; }
  body { margin: 0; min-height: 100vh; display: grid; place-items: center; padding: 1rem; background: var(--bg); color: var(--fg);
         font: 1rem/1.5 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; }
  main { width: 100%; max-width: 28rem; background: var(--card); border-radius: 12px; padding: 2rem 1.5rem; box-shadow: 0 1px 4px rgba(0,0,0,.15); }
  h1 { font-size: 1.5rem; margin: 0 0 .5rem; overflow-wrap: anywhere; }
  .amount { font-size: 2rem; font-weight: 700; margin: 0 0 1.5rem; }
  .muted { color: var(--muted); margin: 0 0 .5rem; overflow-wrap: anywhere; }
  .badge { display: inline-block; margin: 0 0 1rem; padding: .125rem .5rem; border-radius: 999px; background: #fff3cd; color: #5c4400; font-size: .875rem; }
  button { width: 100%; min-height: 3rem; border: 0; border-radius: 8px; background: var(--accent); color: var(--card); font: inherit; font-weight: 600; cursor: pointer; }
  button:focus-visible { outline: 3px solid var(--fg); outline-offset: 2px; }
  form { margin: 0 0 1rem; }
  .visually-hidden { position: absolute; width: 1px; height: 1px; overflow: hidden; clip: rect(0 0 0 0); white-space: nowrap; }
</style>
</head>
<body>
<main>
${main}
</main>
</body>
</html>
`;
}

const HTML_ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => HTML_ESCAPES[c]);
}
