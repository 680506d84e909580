import { escapeHtml, html, PAGE_STYLE, raw, type RawHtml } from '../checkout/html';
import type { DashboardSession } from './store';

/** The dashboard's layout: the hosted pages' styles and escaping html template, wider, with navigation. */
const DASH_STYLE = `
main{max-width:1040px}
header.top{display:flex;flex-wrap:wrap;align-items:center;gap:8px 16px;padding:12px 16px;background:#fff;border-bottom:1px solid var(--line)}
header.top .brand{font-weight:700;margin-right:auto}
nav ul{display:flex;flex-wrap:wrap;gap:4px 16px;list-style:none;margin:0;padding:0}
nav a{color:var(--fg);text-decoration:none;padding:4px 2px;border-bottom:2px solid transparent}
nav a[aria-current=page]{border-bottom-color:var(--accent);font-weight:600}
a{color:var(--accent)}a:focus,select:focus{outline:3px solid #a5b4fc;outline-offset:1px}
form.inline{display:inline}form.inline button{display:inline-block;width:auto;margin:0;padding:6px 12px;font-size:.9rem}
.mode{display:inline-block;border-radius:999px;padding:2px 10px;font-size:.8rem;font-weight:700}
.mode.test{background:#fff7e6;color:#8a5300;border:1px solid #ffd591}.mode.live{background:#ecfdf3;color:var(--ok);border:1px solid #abefc6}
.table-wrap{overflow-x:auto}table{border-collapse:collapse;width:100%;font-size:.95rem}
th,td{text-align:left;padding:8px;border-bottom:1px solid var(--line);vertical-align:top}th{color:var(--muted);font-weight:600}
td code,dd code{font-family:ui-monospace,monospace;font-size:.85rem;word-break:break-all}
.field-error{color:var(--err);font-size:.9rem;margin:4px 0 0}input[aria-invalid=true]{border-color:var(--err)}
select{padding:8px;font-size:1rem;border:1px solid var(--line);border-radius:8px;background:#fff}
.checks label{display:flex;gap:8px;align-items:center;font-weight:400;margin:4px 0}.checks input{width:auto}
.secret{background:#ecfdf3;border:1px solid #abefc6;border-radius:8px;padding:12px;margin:12px 0}
.grid2{display:grid;grid-template-columns:repeat(auto-fit,minmax(260px,1fr));gap:0 16px}
pre{white-space:pre-wrap;word-break:break-all;background:#f6f7f9;border:1px solid var(--line);border-radius:6px;padding:8px;font-size:.8rem;max-height:360px;overflow:auto}
details{border:1px solid var(--line);border-radius:8px;padding:6px 10px;margin:6px 0}summary{cursor:pointer}details h3{font-size:.95rem;margin:8px 0 4px}
.delivery{border-top:1px solid var(--line);padding:8px 0}
.status{font-weight:600}.narrow{max-width:480px;margin:0 auto}
`;

export function layout(title: string, body: RawHtml, opts: { session?: DashboardSession; base: string; active?: string; path?: string; refreshSeconds?: number } = { base: '' }): string {
  const s = opts.session;
  const nav = s
    ? html`<header class="top"><span class="brand">${s.account_name}</span>
      <span class="mode ${s.livemode ? 'live' : 'test'}" data-testid="mode">${s.livemode ? 'Live mode' : 'Sandbox mode'}</span>
      <form class="inline" method="post" action="${opts.base}/mode">${csrfField(s.csrf_token)}<input type="hidden" name="mode" value="${s.livemode ? 'sandbox' : 'live'}"><input type="hidden" name="return_to" value="${opts.path ?? ''}"><button type="submit" class="secondary">Switch to ${s.livemode ? 'sandbox' : 'live'}</button></form>
      <nav aria-label="Dashboard"><ul>
        ${navLink(opts.base, 'payments', 'Payments', opts.active)}${navLink(opts.base, 'keys', 'API keys', opts.active)}${navLink(opts.base, 'payment-links', 'Payment links', opts.active)}${navLink(opts.base, 'webhooks', 'Webhooks', opts.active)}${navLink(opts.base, 'events', 'Events', opts.active)}${navLink(opts.base, 'verification', 'Verification', opts.active)}
      </ul></nav>
      <form class="inline" method="post" action="${opts.base}/signout">${csrfField(s.csrf_token)}<button type="submit" class="secondary">Sign out</button></form></header>`
    : '';
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<title>${escapeHtml(title)} · Dashboard</title>${opts.refreshSeconds ? `<meta http-equiv="refresh" content="${opts.refreshSeconds}">` : ''}
<style>${PAGE_STYLE}${DASH_STYLE}</style></head>
<body>${nav}<main>${body.html}</main></body></html>`;
}

function navLink(base: string, key: string, label: string, active?: string): RawHtml {
  return html`<li><a href="${base}/${key}"${raw(active === key ? ' aria-current="page"' : '')}>${label}</a></li>`;
}

export function csrfField(token: string): RawHtml {
  return html`<input type="hidden" name="_csrf" value="${token}">`;
}

/** A labelled input with its error announced and tied to it (aria-describedby). */
export function field(name: string, label: string, opts: { value?: string; error?: string; type?: string; attrs?: string; hint?: string } = {}): RawHtml {
  const id = name.replace(/[^a-z0-9_-]/gi, '_');
  const describedBy = [opts.hint ? `${id}-hint` : '', opts.error ? `${id}-error` : ''].filter(Boolean).join(' ');
  return html`<div><label for="${id}">${label}</label>${opts.hint ? html`<p class="muted" id="${id}-hint">${opts.hint}</p>` : ''}
    <input id="${id}" name="${name}" type="${opts.type ?? 'text'}" value="${opts.value ?? ''}"${raw(opts.attrs ? ` ${opts.attrs}` : '')}${raw(opts.error ? ' aria-invalid="true"' : '')}${raw(describedBy ? ` aria-describedby="${escapeHtml(describedBy)}"` : '')}>
    ${opts.error ? html`<p class="field-error" id="${id}-error">${opts.error}</p>` : ''}</div>`;
}

export function alertBox(message?: string | null): RawHtml | string {
  return message ? html`<div class="alert" role="alert" data-testid="error">${message}</div>` : '';
}

export function formatDate(d: Date | number): string {
  const date = typeof d === 'number' ? new Date(d * 1000) : d;
  return date.toISOString().replace('T', ' ').slice(0, 19) + ' UTC';
}
