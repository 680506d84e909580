import crypto from 'node:crypto';
import http from 'node:http';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import type { Db } from '../src/db/pool';
import { insertEvent } from '../src/domain/events';
import { leaseSize, takeTokens } from '../src/http/middleware/rate-limit';
import { dispatchEvents } from '../src/webhooks/dispatch';
import { freePort } from '../test/support/ports';
import { autocannonStep, pacedHttpStep, judge, percentile, rateLoop, round, sampleBacklog, type StepResult } from './load';
import { benchAccount, sleep, startApiProcess, type BenchStack } from './stack';

export interface Settings {
  /** How long a rate must hold to count as sustained. */
  stepSeconds: number;
  /** The short steps that look for the ceiling before it is confirmed (see ladder). */
  probeSeconds: number;
  warmupSeconds: number;
  drainSeconds: number;
  paymentRates: number[];
  temporalRates: number[];
  eventsRps: number;
  eventsSeconds: number;
  eventCount: number;
  webhookEventsRps: number;
  webhookSeconds: number;
}

export interface Budget {
  /** Seconds left before the run must wrap up. */
  left(): number;
}

type Measure = (rate: number, seconds: number, signal?: AbortSignal) => Promise<{ requests: number; seconds: number; achieved_rps: number; p50_ms: number; p99_ms: number; errors: number }>;

export interface LadderResult {
  max_sustained_rps: number | null;
  p50_ms: number | null;
  p99_ms: number | null;
  errors: number | null;
  /** One operation at a time, before any load: the floor the rates build on. */
  unloaded_p50_ms: number;
  steps: StepResult[];
  stopped: string;
}

/**
 * Finds the highest rate held for stepSeconds, in two phases so the 5-minute budget stretches:
 * 1. probe: short steps (probeSeconds) up the ladder until one is not held;
 * 2. confirm: full steps (stepSeconds), from the highest probe that held downwards, until one holds.
 * Only a confirmed step counts as sustained. With probeSeconds ≥ stepSeconds (the default) there is
 * no second phase: probes did not predict confirmations here, because the dev server slows down as
 * workflows pile up within a step. The ladder starts on a fresh dev server (see restartTemporal), so
 * neither ladder inherits the other's open workflows, and a failed step's server is replaced, so its
 * backlog is not carried into the next step. Each step is watched by a backlog sampler: a step whose
 * backlog runs away is stopped early.
 */
async function ladder(
  stack: BenchStack,
  s: Settings,
  budget: Budget,
  reserveSeconds: number,
  rates: number[],
  measure: Measure,
  single: () => Promise<unknown>,
  log: (l: string) => void,
): Promise<LadderResult> {
  const serial: number[] = [];
  for (let i = 0; i < 40; i++) {
    const t = performance.now();
    await single();
    if (i >= 10) serial.push(performance.now() - t);
  }
  const unloaded_p50_ms = round(percentile(serial, 50));
  log(`  one at a time: p50 ${unloaded_p50_ms} ms`);
  if (s.warmupSeconds > 0) await measure(rates[0], s.warmupSeconds);
  const steps: StepResult[] = [];
  let restartSeconds = 10;
  let fresh = false;
  const runStep = async (rate: number, seconds: number, phase: 'probe' | 'confirm') => {
    if (!fresh) {
      const t = performance.now();
      await stack.restartTemporal();
      restartSeconds = (performance.now() - t) / 1000;
    }
    // A held step never comes near this (its backlog stays within a second of arrivals).
    const sampler = sampleBacklog(stack.client, stack.taskQueue, Math.max(200, rate * 3));
    const m = await measure(rate, seconds, sampler.signal);
    const backlog = await sampler.stop();
    const base = { target_rps: rate, ...pick(m), ...backlog };
    const step: StepResult = { phase, ...base, ...judge(base) };
    steps.push(step);
    // A held step leaves a server in the state the next rung should build on; a failed one does not.
    fresh = step.sustained;
    log(`  ${phase} ${rate}/s for ${step.seconds} s: ${step.achieved_rps}/s p50 ${step.p50_ms} ms p99 ${step.p99_ms} ms errors ${step.errors} backlog ${step.backlog_start}→${step.backlog_end} (max ${step.backlog_max})${step.sustained ? '' : ` ✗ ${step.failed.join('; ')}`}`);
    return step;
  };
  const fits = (seconds: number) => budget.left() - reserveSeconds >= seconds + restartSeconds + 3;

  const probeSeconds = Math.min(s.probeSeconds, s.stepSeconds);
  const confirmPhase = probeSeconds < s.stepSeconds;
  // Leave room for a confirming step after the probes.
  const probeReserve = confirmPhase ? s.stepSeconds + restartSeconds : 0;
  const probesHeld: number[] = [];
  let stopped = 'every rate held';
  for (const rate of rates) {
    if (!fits(probeSeconds + probeReserve)) {
      stopped = `time budget reached before ${rate}/s`;
      break;
    }
    const step = await runStep(rate, probeSeconds, confirmPhase ? 'probe' : 'confirm');
    if (!step.sustained) {
      stopped = `not sustained at ${rate}/s: ${step.failed.join('; ')}`;
      break;
    }
    probesHeld.push(rate);
  }
  let best: StepResult | undefined;
  if (!confirmPhase) best = steps.filter((x) => x.sustained).at(-1);
  else {
    for (const rate of [...probesHeld].reverse()) {
      if (!fits(s.stepSeconds)) {
        stopped += `; time budget reached before confirming ${rate}/s`;
        break;
      }
      const step = await runStep(rate, s.stepSeconds, 'confirm');
      if (step.sustained) {
        best = step;
        break;
      }
      stopped += `; ${rate}/s not held for ${s.stepSeconds} s: ${step.failed.join('; ')}`;
    }
  }
  // Nothing held, not even the first rung (which may have been set high on purpose): step down
  // 10 % at a time, so the result is a measured rate rather than none.
  for (let rate = Math.floor(rates[0] * 0.9); !best && steps.length > 0 && rate >= 1 && fits(s.stepSeconds); rate = Math.floor(rate * 0.9)) {
    const step = await runStep(rate, s.stepSeconds, 'confirm');
    if (step.sustained) best = step;
    else stopped += `; ${rate}/s not held for ${s.stepSeconds} s: ${step.failed.join('; ')}`;
  }
  return {
    max_sustained_rps: best?.target_rps ?? null,
    p50_ms: best?.p50_ms ?? null,
    p99_ms: best?.p99_ms ?? null,
    errors: best?.errors ?? null,
    unloaded_p50_ms,
    steps,
    stopped,
  };
}

function pick(m: Awaited<ReturnType<Measure>>) {
  return { requests: m.requests, seconds: m.seconds, achieved_rps: m.achieved_rps, p50_ms: m.p50_ms, p99_ms: m.p99_ms, errors: m.errors };
}

/** Bare workflow starts of idleWorkflow (a 1 h sleep), from this process straight to the dev server. */
export async function temporalStartBaseline(stack: BenchStack, s: Settings, budget: Budget, reserve: number, log: (l: string) => void) {
  const start = () =>
    stack.client.workflow.start('idleWorkflow', { taskQueue: stack.taskQueue, workflowId: `bench-idle-${crypto.randomUUID()}`, args: [3_600_000] });
  const result = await ladder(stack, s, budget, reserve, s.temporalRates, (rate, seconds, signal) => rateLoop(rate, seconds, start, signal), start, log);
  return { ...result, workflow: 'idleWorkflow (sleeps 1 h)' };
}

function paymentLoad(url: string, secret: string) {
  return {
    url: `${url}/v1/payments`,
    method: 'POST' as const,
    headers: { authorization: `Bearer ${secret}`, 'content-type': 'application/json' },
    body: JSON.stringify({ amount: 2000, currency: 'EUR', metadata: { order: 'bench' } }),
    idempotencyKey: true,
  };
}

/** POST /v1/payments, each with its own Idempotency-Key, through the API process. */
export async function createPaymentScenario(stack: BenchStack, s: Settings, budget: Budget, reserve: number, log: (l: string) => void) {
  const { secret } = await benchAccount(stack.db, 'bench create_payment');
  const load = paymentLoad(stack.api.url, secret);
  const single = async () => {
    const res = await fetch(load.url, { method: 'POST', headers: { ...load.headers, 'idempotency-key': crypto.randomUUID() }, body: load.body });
    if (!res.ok) throw new Error(`POST /v1/payments answered ${res.status}: ${await res.text()}`);
  };
  return ladder(stack, s, budget, reserve, s.paymentRates, (rate, seconds, signal) => pacedHttpStep(load, rate, seconds, signal), single, log);
}

/**
 * The limiter's cost. Its statement (one upsert on the bucket row of the account and mode) timed
 * alone, serially and 10 at a time on one bucket, against a bare `SELECT 1`. An API process runs
 * it once per lease of leaseSize(limit) requests, not once per request (see rate-limit.ts).
 */
export async function limiterCost(stack: BenchStack, log: (l: string) => void) {
  const timeSerial = async (n: number, fn: () => Promise<unknown>) => {
    const t = performance.now();
    for (let i = 0; i < n; i++) await fn();
    return (performance.now() - t) / n;
  };
  const timeConcurrent = async (n: number, concurrency: number, fn: () => Promise<unknown>) => {
    let next = 0;
    const lat: number[] = [];
    const t = performance.now();
    await Promise.all(
      Array.from({ length: concurrency }, async () => {
        while (next++ < n) {
          const a = performance.now();
          await fn();
          lat.push(performance.now() - a);
        }
      }),
    );
    return { per_s: round(n / ((performance.now() - t) / 1000)), p50_ms: round(percentile(lat, 50), 2) };
  };
  const bucket = `bench-limiter:${crypto.randomUUID()}`;
  const take = () => takeTokens(stack.db.pool, bucket, 1_000_000_000, 1);
  const select1 = () => stack.db.pool.query('SELECT 1');
  await timeSerial(200, take);
  await timeSerial(200, select1);
  const serialTake = await timeSerial(1000, take);
  const serialSelect = await timeSerial(1000, select1);
  const concTake = await timeConcurrent(3000, 10, take);
  const concSelect = await timeConcurrent(3000, 10, select1);
  log(`  take-token ${round(serialTake, 3)} ms vs SELECT 1 ${round(serialSelect, 3)} ms serial; ${concTake.per_s}/s vs ${concSelect.per_s}/s at 10 in flight on one bucket`);

  const defaultLease = leaseSize(1000);
  log(`  at the default 1000/s an API process runs it once per ${defaultLease} requests (${round(serialTake / defaultLease, 3)} ms of database time per request)`);
  return {
    statement: 'one INSERT … ON CONFLICT DO UPDATE on rate_limit_buckets, taking a lease of tokens (autocommit; UNLOGGED table)',
    serial_ms_per_call: round(serialTake, 3),
    serial_select1_ms: round(serialSelect, 3),
    extra_ms_per_call: round(serialTake - serialSelect, 3),
    one_bucket_calls_per_s_10_in_flight: concTake.per_s,
    select1_per_s_10_in_flight: concSelect.per_s,
    default_limit_per_s: 1000,
    requests_per_call_at_default_limit: defaultLease,
    extra_ms_per_request_at_default_limit: round((serialTake - serialSelect) / defaultLease, 4),
  };
}

/** Is a route there? A missing one is the router's 404 "Unrecognized request URL". */
async function routeExists(url: string, method: string, secret: string): Promise<boolean> {
  const res = await fetch(url, { method, headers: { authorization: `Bearer ${secret}`, 'content-type': 'application/json' }, body: method === 'GET' ? undefined : '{}' });
  const body = (await res.json().catch(() => ({}))) as { error?: { message?: string } };
  return !(res.status === 404 && /Unrecognized request URL/.test(body.error?.message ?? '')) && res.status !== 405;
}

/**
 * Bulk-inserts `count` events for one account in one INSERT … SELECT generate_series: UUIDv7-shaped
 * ids (48-bit millisecond timestamp, version 7, variant 10), one millisecond apart and ending a
 * minute ago, so id order is time order and created_at equals the id's timestamp, as insertEvent
 * makes them. They are marked dispatched so no webhook sweep picks them up.
 */
export async function seedEvents(db: Db, accountId: string, count: number): Promise<number> {
  const t = performance.now();
  const firstMs = Date.now() - 60_000 - count;
  await db.query(
    `INSERT INTO events (id, account_id, livemode, type, data, created_at, dispatched_at)
     SELECT (lpad(to_hex(ms), 12, '0') || '7' || substr(h, 1, 3) || substr('89ab', 1 + (i % 4)::int, 1) || substr(h, 4, 15))::uuid,
            $1, false,
            CASE WHEN i % 2 = 0 THEN 'payment.created' ELSE 'payment.requires_action' END,
            jsonb_build_object('object', jsonb_build_object(
              'id', 'pmt_' || (lpad(to_hex(ms), 12, '0') || '7' || substr(h, 16, 3) || '8' || substr(h, 18, 15))::uuid,
              'object', 'payment', 'amount', 2000, 'currency', 'EUR', 'livemode', false,
              'status', CASE WHEN i % 2 = 0 THEN 'requires_action' ELSE 'requires_action' END,
              'methods', jsonb_build_array('card', 'apple_pay', 'google_pay', 'usdc', 'sepa'),
              'metadata', jsonb_build_object('order', 'bench-' || i),
              'created', (ms / 1000)::bigint)),
            to_timestamp(ms / 1000.0), to_timestamp(ms / 1000.0)
       FROM (SELECT i, $2::bigint + i AS ms, md5(i::text || $3) AS h FROM generate_series(0, $4::int - 1) AS i) s`,
    [accountId, firstMs, crypto.randomUUID(), count],
  );
  // Vacuumed and analysed now, so autovacuum does not wake up for these 100,000 inserts mid-measurement.
  await db.query('VACUUM ANALYZE events');
  return round((performance.now() - t) / 1000);
}

/** GET /v1/events?limit=20 at a fixed rate over an account with `eventCount` events. */
export async function listEventsScenario(stack: BenchStack, s: Settings, log: (l: string) => void) {
  const { accountId, secret } = await benchAccount(stack.db, 'bench list_events');
  const url = `${stack.api.url}/v1/events?limit=20`;
  if (!(await routeExists(url, 'GET', secret))) return { skipped: 'route missing' as const };
  const seed_s = await seedEvents(stack.db, accountId, s.eventCount);
  log(`  seeded ${s.eventCount} events in ${seed_s} s`);
  const load = { url, method: 'GET' as const, headers: { authorization: `Bearer ${secret}` } };
  await autocannonStep(load, Math.min(200, s.eventsRps), Math.max(1, s.warmupSeconds));
  const m = await autocannonStep(load, s.eventsRps, s.eventsSeconds);
  log(`  ${s.eventsRps}/s: ${m.achieved_rps}/s p50 ${m.p50_ms} ms p99 ${m.p99_ms} ms errors ${m.errors}`);
  // The same load over two API processes, as deployed behind a load balancer: one Node process at
  // 1,000 req/s is close to a full core here, and the API is built to run several.
  const second = await startApiProcess(stack.apiEnv, path.join(stack.tmp, 'api-2.log'));
  let two: Awaited<ReturnType<typeof autocannonStep>>;
  try {
    const urls = [url, `${second.url}/v1/events?limit=20`];
    await autocannonStep(load, Math.min(200, s.eventsRps), Math.max(1, s.warmupSeconds), urls);
    two = await autocannonStep(load, s.eventsRps, s.eventsSeconds, urls);
  } finally {
    await second.stop();
  }
  log(`  ${s.eventsRps}/s over two API processes: ${two.achieved_rps}/s p50 ${two.p50_ms} ms p99 ${two.p99_ms} ms errors ${two.errors}`);
  return {
    events_in_table: s.eventCount,
    seed_seconds: seed_s,
    target_rps: s.eventsRps,
    seconds: m.seconds,
    rps: m.achieved_rps,
    p50_ms: m.p50_ms,
    p99_ms: m.p99_ms,
    errors: m.errors,
    two_api_processes: { rps: two.achieved_rps, p50_ms: two.p50_ms, p99_ms: two.p99_ms, errors: two.errors },
  };
}

/**
 * Events committed at a fixed rate (insertEvent in its own transaction, then dispatchEvents after
 * commit, as the API does), fanned out to one endpoint registered through the API that points at a
 * local receiver answering 200 at once. Latency runs from events.created_at to the receiver's arrival.
 */
export async function webhookDeliveryScenario(stack: BenchStack, s: Settings, log: (l: string) => void) {
  const { accountId, secret } = await benchAccount(stack.db, 'bench webhook_delivery');
  if (!(await routeExists(`${stack.api.url}/v1/webhook-endpoints`, 'POST', secret))) return { skipped: 'route missing' as const };
  const arrivals = new Map<string, number[]>();
  const receiver = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const at = Date.now();
      try {
        const id = (JSON.parse(Buffer.concat(chunks).toString('utf8')) as { id: string }).id;
        arrivals.set(id, [...(arrivals.get(id) ?? []), at]);
      } catch {
        // not an event: ignore
      }
      res.writeHead(200, { 'content-type': 'text/plain' }).end('ok');
    });
  });
  const port = await freePort();
  await new Promise<void>((r) => receiver.listen(port, '127.0.0.1', () => r()));
  try {
    const reg = await fetch(`${stack.api.url}/v1/webhook-endpoints`, {
      method: 'POST',
      headers: { authorization: `Bearer ${secret}`, 'content-type': 'application/json' },
      body: JSON.stringify({ url: `http://127.0.0.1:${port}/hook`, enabled_events: ['*'] }),
    });
    if (!reg.ok) throw new Error(`webhook endpoint registration failed: ${reg.status} ${await reg.text()}`);

    const created = new Map<string, number>();
    const deps = { db: stack.db, temporal: stack.client, taskQueue: stack.taskQueue, searchAttributes: true };
    const emit = async () => {
      const event = await stack.db.withTransaction((tx) =>
        insertEvent(tx, { accountId, livemode: false, type: 'payment.created', object: { object: 'payment', amount: 2000, currency: 'EUR' } }),
      );
      created.set(`evt_${event.id}`, event.created_at.getTime());
      await dispatchEvents(deps, [event.id]);
    };
    const m = await rateLoop(s.webhookEventsRps, s.webhookSeconds, emit);
    const deadline = Date.now() + s.drainSeconds * 1000;
    while ([...created.keys()].some((id) => !arrivals.has(id)) && Date.now() < deadline) await sleep(250);
    const firstLatencies: number[] = [];
    let lastArrival = 0;
    let duplicates = 0;
    for (const [id, at] of created) {
      const got = arrivals.get(id);
      if (!got) continue;
      firstLatencies.push(got[0] - at);
      lastArrival = Math.max(lastArrival, ...got);
      duplicates += got.length - 1;
    }
    const firstCreated = Math.min(...created.values());
    const result = {
      events: created.size,
      event_rps: s.webhookEventsRps,
      emit_errors: m.errors,
      delivered: firstLatencies.length,
      undelivered: created.size - firstLatencies.length,
      duplicates,
      deliveries_per_s: round(firstLatencies.length / Math.max(1, (lastArrival - firstCreated) / 1000)),
      first_attempt_p50_ms: round(percentile(firstLatencies, 50)),
      first_attempt_p99_ms: round(percentile(firstLatencies, 99)),
    };
    log(`  ${result.delivered}/${result.events} delivered, ${result.deliveries_per_s}/s, first attempt p50 ${result.first_attempt_p50_ms} ms p99 ${result.first_attempt_p99_ms} ms`);
    return result;
  } finally {
    await new Promise<void>((r) => receiver.close(() => r()));
  }
}
