import http from 'node:http';
import https from 'node:https';
import net from 'node:net';
import { isPrivateAddress, publicOnlyLookup } from './address';

export const RESPONSE_BODY_LIMIT = 64 * 1024;

export interface SendResult {
  status: number | null;
  headers: Record<string, string> | null;
  /** First 64 KiB, as UTF-8. */
  body: string | null;
  durationMs: number;
  error: string | null;
}

/**
 * POSTs one webhook. Never throws: every failure (DNS, refused, TLS, timeout, unsafe address)
 * comes back as `error`, because a failed attempt is a normal outcome that the schedule retries.
 * The timeout covers the whole exchange, headers and body.
 */
export function sendWebhook(opts: { url: string; headers: Record<string, string>; body: string; timeoutMs: number; publicOnly: boolean }): Promise<SendResult> {
  const started = process.hrtime.bigint();
  const elapsed = () => Number((process.hrtime.bigint() - started) / 1_000_000n);
  return new Promise<SendResult>((resolve) => {
    let settled = false;
    const pending: { req?: http.ClientRequest } = {};
    // Armed first, so every early exit below can clear it.
    const timer = setTimeout(() => {
      finish({ status: null, headers: null, body: null, error: `timed out after ${opts.timeoutMs} ms` });
      pending.req?.destroy();
    }, opts.timeoutMs);
    const finish = (r: Omit<SendResult, 'durationMs'>) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve({ ...r, durationMs: elapsed() });
    };
    let url: URL;
    try {
      url = new URL(opts.url);
    } catch {
      return finish({ status: null, headers: null, body: null, error: 'invalid url' });
    }
    const host = url.hostname.replace(/^\[|\]$/g, '');
    // IP literals skip the lookup hook, so check them here.
    if (opts.publicOnly && net.isIP(host) && isPrivateAddress(host)) {
      return finish({ status: null, headers: null, body: null, error: `${host} is a private, loopback or link-local address` });
    }
    const lib = url.protocol === 'https:' ? https : http;
    const req = (pending.req = lib.request(url, {
      method: 'POST',
      headers: { ...opts.headers, 'Content-Length': String(Buffer.byteLength(opts.body)) },
      ...(opts.publicOnly ? { lookup: publicOnlyLookup as any } : {}),
    }));
    req.on('error', (err) => finish({ status: null, headers: null, body: null, error: err.message || String(err) }));
    req.on('response', (res) => {
      const chunks: Buffer[] = [];
      let size = 0;
      const headers: Record<string, string> = {};
      for (const [k, v] of Object.entries(res.headers)) if (v !== undefined) headers[k] = Array.isArray(v) ? v.join(', ') : v;
      const done = () => finish({ status: res.statusCode ?? null, headers, body: Buffer.concat(chunks).subarray(0, RESPONSE_BODY_LIMIT).toString('utf8'), error: null });
      res.on('data', (chunk: Buffer) => {
        if (size < RESPONSE_BODY_LIMIT) chunks.push(chunk);
        size += chunk.length;
        // Enough recorded: stop reading a huge response rather than wait for it.
        if (size >= RESPONSE_BODY_LIMIT) {
          done();
          res.destroy();
        }
      });
      res.on('end', done);
      res.on('error', (err) => finish({ status: res.statusCode ?? null, headers, body: null, error: err.message }));
    });
    req.end(opts.body);
  });
}
