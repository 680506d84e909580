/** Minimal HTML helpers for the hosted pages: every interpolated value is escaped. */
export function escapeHtml(value: unknown): string {
  return String(value ?? '')
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;')
    .replace(/'/g, '&#39;');
}

/** Tagged template: values are escaped unless wrapped with raw(). */
export class RawHtml {
  constructor(readonly html: string) {}
  toString() {
    return this.html;
  }
}
export const raw = (html: string) => new RawHtml(html);

export function html(strings: TemplateStringsArray, ...values: unknown[]): RawHtml {
  let out = strings[0];
  values.forEach((v, i) => {
    const rendered = Array.isArray(v) ? v.map((x) => (x instanceof RawHtml ? x.html : escapeHtml(x))).join('') : v instanceof RawHtml ? v.html : v === false || v === null || v === undefined ? '' : escapeHtml(v);
    out += rendered + strings[i + 1];
  });
  return new RawHtml(out);
}

export const PAGE_STYLE = `
:root{--fg:#1a1f36;--muted:#5c6478;--line:#d8dde6;--accent:#4f46e5;--ok:#0a7d45;--err:#b42318;--bg:#f6f8fb}
*{box-sizing:border-box}body{margin:0;font:16px/1.5 system-ui,-apple-system,Segoe UI,Roboto,sans-serif;color:var(--fg);background:var(--bg)}
main{max-width:480px;margin:0 auto;padding:24px 16px}
.card{background:#fff;border:1px solid var(--line);border-radius:12px;padding:20px;margin:16px 0}
h1{font-size:1.25rem;margin:0 0 4px}.amount{font-size:2rem;font-weight:700;margin:0}
.muted{color:var(--muted);font-size:.9rem}
label{display:block;font-weight:600;margin:12px 0 4px}
input{width:100%;padding:10px 12px;font-size:1rem;border:1px solid var(--line);border-radius:8px}
input:focus,button:focus{outline:3px solid #a5b4fc;outline-offset:1px}
.row{display:flex;gap:12px}.row>div{flex:1}
button{display:block;width:100%;margin-top:16px;padding:12px;font-size:1rem;font-weight:600;border:0;border-radius:8px;background:var(--accent);color:#fff;cursor:pointer}
button.secondary{background:#fff;color:var(--fg);border:1px solid var(--line)}
.alert{border-radius:8px;padding:12px;margin:12px 0;background:#fef3f2;color:var(--err);border:1px solid #fecdca}
.success{color:var(--ok)}.banner{background:#fff7e6;border:1px solid #ffd591;border-radius:8px;padding:8px 12px;font-size:.85rem}
dl{display:grid;grid-template-columns:auto 1fr;gap:4px 12px;margin:8px 0}dt{color:var(--muted)}dd{margin:0;font-family:ui-monospace,monospace;word-break:break-all}
fieldset{border:0;padding:0;margin:0}legend{font-weight:700;font-size:1.05rem;margin-bottom:4px}
`;

export function page(title: string, body: RawHtml, opts: { refreshSeconds?: number; nonce?: string; script?: string } = {}): string {
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<title>${escapeHtml(title)}</title>${opts.refreshSeconds ? `<meta http-equiv="refresh" content="${opts.refreshSeconds}">` : ''}
<style>${PAGE_STYLE}</style></head>
<body><main>${body.html}</main>${opts.script && opts.nonce ? `<script nonce="${opts.nonce}">${opts.script}</script>` : ''}</body></html>`;
}
