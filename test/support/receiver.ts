import http from 'node:http';

export interface ReceivedRequest {
  method: string;
  path: string;
  headers: http.IncomingHttpHeaders;
  body: string;
  receivedAt: number;
}

export type Reply = { status: number; body?: string; delayMs?: number };

/** A real HTTP receiver on 127.0.0.1 that records every request and answers as the test says. */
export async function startReceiver(reply: (req: ReceivedRequest, index: number) => Reply | Promise<Reply> = () => ({ status: 200 })) {
  const requests: ReceivedRequest[] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const r: ReceivedRequest = { method: req.method ?? '', path: req.url ?? '', headers: req.headers, body: Buffer.concat(chunks).toString('utf8'), receivedAt: Date.now() };
      const index = requests.push(r) - 1;
      void Promise.resolve(reply(r, index)).then((out) => {
        const send = () => {
          if (res.destroyed) return;
          res.writeHead(out.status, { 'Content-Type': 'text/plain', 'X-Receiver': 'test' });
          res.end(out.body ?? `status ${out.status}`);
        };
        if (out.delayMs) setTimeout(send, out.delayMs);
        else send();
      });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as { port: number }).port;
  return {
    url: `http://127.0.0.1:${port}/hooks`,
    requests,
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** Polls until fn returns a truthy value or the deadline passes. */
export async function waitFor<T>(fn: () => T | Promise<T>, opts: { timeoutMs?: number; intervalMs?: number; what?: string } = {}): Promise<NonNullable<T>> {
  const deadline = Date.now() + (opts.timeoutMs ?? 30_000);
  for (;;) {
    const v = await fn();
    if (v) return v as NonNullable<T>;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${opts.what ?? 'condition'}`);
    await new Promise((r) => setTimeout(r, opts.intervalMs ?? 100));
  }
}
