import crypto from 'node:crypto';
import http from 'node:http';
import { performance } from 'node:perf_hooks';
import autocannon from 'autocannon';
import type { Client } from '@temporalio/client';
import { sleep } from './stack';

/** What one step at one target rate produced. */
export interface StepResult {
  /** probe: a short step looking for the ceiling; confirm: a full step that can count as sustained. */
  phase: 'probe' | 'confirm';
  target_rps: number;
  achieved_rps: number;
  seconds: number;
  requests: number;
  p50_ms: number;
  p99_ms: number;
  errors: number;
  /** Workflow tasks waiting on the task queue (Temporal's approximate backlog), sampled each second. */
  backlog_start: number;
  backlog_max: number;
  backlog_end: number;
  /** Least-squares slope of the backlog over the second half of the step, tasks per second. */
  backlog_slope_per_s: number;
  /** Set when the step was stopped early because the backlog passed its limit (see sampleBacklog). */
  aborted_after_s?: number;
  sustained: boolean;
  /** Why the step does not count as sustained. */
  failed: string[];
}

export const P50_LIMIT_MS = 150;

/** The rule used for every rate ladder: all answered, at the rate asked, p50 under the limit, a backlog that does not keep growing. */
export function judge(step: Omit<StepResult, 'sustained' | 'failed' | 'phase'>): { sustained: boolean; failed: string[] } {
  const failed: string[] = [];
  if (step.errors > 0) failed.push(`${step.errors} errors`);
  if (step.p50_ms >= P50_LIMIT_MS) failed.push(`p50 ${step.p50_ms} ms ≥ ${P50_LIMIT_MS} ms`);
  if (step.achieved_rps < step.target_rps * 0.95) failed.push(`achieved ${step.achieved_rps}/s < 95% of ${step.target_rps}/s`);
  const growing = step.backlog_end > Math.max(50, step.target_rps * 0.5) && step.backlog_slope_per_s > Math.max(1, step.target_rps * 0.02);
  if (step.aborted_after_s !== undefined) failed.push(`workflow backlog passed ${step.backlog_max} tasks after ${step.aborted_after_s} s: stopped early`);
  else if (growing) failed.push(`workflow backlog growing (${step.backlog_end} tasks, +${step.backlog_slope_per_s}/s)`);
  return { sustained: failed.length === 0, failed };
}

/**
 * Samples the workflow-task backlog of a task queue once a second until stopped. When it passes
 * abortAbove, `signal` aborts: that step has already failed, and running it to the end would only
 * leave a longer queue for the next one to inherit.
 */
export function sampleBacklog(client: Client, taskQueue: string, abortAbove = Infinity) {
  const samples: Array<{ t: number; backlog: number }> = [];
  const started = performance.now();
  const abort = new AbortController();
  let abortedAt: number | undefined;
  let stopped = false;
  const loop = (async () => {
    while (!stopped) {
      const t = (performance.now() - started) / 1000;
      const backlog = await workflowBacklog(client, taskQueue).catch(() => NaN);
      samples.push({ t, backlog });
      if (backlog > abortAbove && abortedAt === undefined) {
        abortedAt = round(t);
        abort.abort();
      }
      await sleep(1000);
    }
  })();
  return {
    signal: abort.signal,
    async stop() {
      stopped = true;
      await loop;
      const valid = samples.filter((s) => Number.isFinite(s.backlog));
      const secondHalf = valid.filter((s) => s.t >= (valid.at(-1)?.t ?? 0) / 2);
      return {
        backlog_start: valid[0]?.backlog ?? 0,
        backlog_max: Math.max(0, ...valid.map((s) => s.backlog)),
        backlog_end: valid.at(-1)?.backlog ?? 0,
        backlog_slope_per_s: round(slope(secondHalf.map((s) => [s.t, s.backlog]))),
        ...(abortedAt === undefined ? {} : { aborted_after_s: abortedAt }),
      };
    },
  };
}

export async function workflowBacklog(client: Client, taskQueue: string): Promise<number> {
  const res = await client.workflowService.describeTaskQueue({
    namespace: client.options.namespace,
    taskQueue: { name: taskQueue, kind: 1 /* TASK_QUEUE_KIND_NORMAL */ },
    taskQueueType: 1 /* TASK_QUEUE_TYPE_WORKFLOW */,
    reportStats: true,
  });
  return Number(res.stats?.approximateBacklogCount ?? 0);
}

export interface HttpLoad {
  url: string;
  method: 'GET' | 'POST';
  headers: Record<string, string>;
  body?: string;
  /** A fresh Idempotency-Key on every request. */
  idempotencyKey?: boolean;
}

/**
 * HTTP requests at a fixed rate, paced exactly like the bare Temporal starts (rateLoop: evenly
 * spaced, open loop), over keep-alive connections of Node's own HTTP client. The two rate ladders
 * must share one method, so create_payment is not driven by autocannon's fixed-rate mode, which sends
 * each connection's quota for the second back to back when a 1 s tick fires: the load would arrive
 * as one burst a second, against evenly spaced starts in the baseline.
 */
export async function pacedHttpStep(load: HttpLoad, rate: number, seconds: number, signal?: AbortSignal) {
  const agent = new http.Agent({ keepAlive: true, maxSockets: 512 });
  const url = new URL(load.url);
  const call = () =>
    new Promise<void>((resolve, reject) => {
      const headers = load.idempotencyKey ? { ...load.headers, 'idempotency-key': crypto.randomUUID() } : load.headers;
      const req = http.request({ agent, host: url.hostname, port: url.port, path: url.pathname + url.search, method: load.method, headers }, (res) => {
        res.resume();
        res.on('end', () => (res.statusCode! >= 200 && res.statusCode! < 300 ? resolve() : reject(new Error(`${load.method} ${url.pathname} answered ${res.statusCode}`))));
        res.on('error', reject);
      });
      req.setTimeout(10_000, () => req.destroy(new Error('no answer within 10 s')));
      req.on('error', reject);
      req.end(load.body);
    });
  try {
    return await rateLoop(rate, seconds, call, signal);
  } finally {
    agent.destroy();
  }
}

/**
 * A fixed request rate with autocannon, for throughput (list_events at 1,000 req/s): its client costs
 * the shared CPU far less than Node's. One autocannon instance sends each connection's quota for the
 * second back to back when its 1 s tick fires, so the whole second's load would arrive as one burst;
 * `instances` instances, started 1/instances s apart, spread it over the second (20 ms apart by
 * default). Latencies are every response's own, collected from the instances' `response` events:
 * autocannon's coordinated-omission correction assumes a 1 ms interval between requests
 * (`Math.ceil(1 / rate)`), which would add a synthetic sample for every millisecond of every response.
 */
export async function autocannonStep(load: HttpLoad, rate: number, seconds: number, urls = [load.url], instances = Math.max(1, Math.min(50, Math.floor(rate / 20)))) {
  const latencies: number[] = [];
  let errors = 0;
  const runs = Array.from({ length: instances }, async (_, i) => {
    await sleep((i * 1000) / instances);
    const share = Math.floor(rate / instances) + (i < rate % instances ? 1 : 0);
    // The instance is both the result promise and an event emitter.
    const run = autocannon({
      // Several URLs (API processes): the instances take turns, so each gets an even share.
      url: urls[i % urls.length],
      method: load.method,
      headers: load.headers,
      body: load.body,
      connections: Math.max(1, Math.ceil(share / 4)),
      overallRate: share,
      duration: seconds,
      timeout: 10,
    }) as unknown as Promise<autocannon.Result> & { on(event: 'response', fn: (client: unknown, status: number, bytes: number, ms: number) => void): void };
    run.on('response', (_client: unknown, status: number, _bytes: number, ms: number) => {
      if (status >= 200 && status < 300) latencies.push(ms);
      else errors++;
    });
    return run;
  });
  const results = await Promise.all(runs);
  errors += results.reduce((n, r) => n + r.errors + r.timeouts, 0);
  const ran = results.reduce((t, r) => t + r.duration, 0) / results.length;
  return {
    requests: latencies.length + errors,
    seconds: round(ran),
    achieved_rps: round(latencies.length / ran),
    p50_ms: round(percentile(latencies, 50)),
    p99_ms: round(percentile(latencies, 99)),
    errors,
  };
}

/** Calls fn at a fixed rate for the given seconds (open loop: a slow call does not delay the next). */
export async function rateLoop(rate: number, seconds: number, fn: () => Promise<unknown>, signal?: AbortSignal) {
  const latencies: number[] = [];
  let errors = 0;
  let firstError: string | undefined;
  let sent = 0;
  const inflight = new Set<Promise<void>>();
  const started = performance.now();
  for (;;) {
    const elapsed = (performance.now() - started) / 1000;
    if (elapsed >= seconds || signal?.aborted) break;
    const due = Math.floor(elapsed * rate) - sent;
    for (let i = 0; i < due; i++) {
      // Latency counts from when the call was due, so a lagging generator is charged, never hidden.
      const t = started + (sent * 1000) / rate;
      sent++;
      const p: Promise<void> = fn().then(
        () => void latencies.push(performance.now() - t),
        (err) => {
          errors++;
          firstError ??= (err as Error)?.message;
        },
      );
      inflight.add(p);
      void p.finally(() => inflight.delete(p));
    }
    await sleep(2);
  }
  await Promise.all(inflight);
  const total = (performance.now() - started) / 1000;
  const ran = signal?.aborted ? total : Math.max(seconds, total);
  return {
    requests: sent,
    seconds: round(ran),
    achieved_rps: round(latencies.length / ran),
    p50_ms: round(percentile(latencies, 50)),
    p99_ms: round(percentile(latencies, 99)),
    errors,
    firstError,
  };
}

export function percentile(values: number[], p: number): number {
  if (values.length === 0) return NaN;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];
}

function slope(points: Array<[number, number]>): number {
  if (points.length < 2) return 0;
  const n = points.length;
  const mx = points.reduce((s, [x]) => s + x, 0) / n;
  const my = points.reduce((s, [, y]) => s + y, 0) / n;
  const num = points.reduce((s, [x, y]) => s + (x - mx) * (y - my), 0);
  const den = points.reduce((s, [x]) => s + (x - mx) ** 2, 0);
  return den === 0 ? 0 : num / den;
}

export const round = (n: number, digits = 1) => (Number.isFinite(n) ? Math.round(n * 10 ** digits) / 10 ** digits : n);
