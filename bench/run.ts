/**
 * `npm run bench`: throughput and latency of the service on one machine, against the same embedded
 * stack as `npm start` (temporary data, free ports). Writes bench/results/latest.json and prints a
 * table. See bench/README.md for what each figure means.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { P50_LIMIT_MS } from './load';
import {
  createPaymentScenario,
  limiterCost,
  listEventsScenario,
  temporalStartBaseline,
  webhookDeliveryScenario,
  type Budget,
  type LadderResult,
  type Settings,
} from './scenarios';
import { startBenchStack } from './stack';

const num = (name: string, fallback: number) => {
  const v = process.env[name];
  if (v === undefined || v === '') return fallback;
  const n = Number(v);
  if (!Number.isFinite(n) || n < 0) throw new Error(`${name} must be a non-negative number, got ${JSON.stringify(v)}`);
  return n;
};
const rates = (name: string, fallback: number[]) =>
  process.env[name] ? process.env[name]!.split(',').map((x) => Number(x.trim())).filter((x) => x > 0) : fallback;

const settings: Settings = {
  stepSeconds: num('BENCH_STEP_SECONDS', 30),
  warmupSeconds: num('BENCH_WARMUP_SECONDS', 3),
  drainSeconds: num('BENCH_DRAIN_SECONDS', 15),
  paymentRates: rates('BENCH_PAYMENT_RATES', [10, 25, 50, 100, 200, 400, 800]),
  temporalRates: rates('BENCH_TEMPORAL_RATES', [25, 50, 100, 200, 400, 800, 1600]),
  eventsRps: num('BENCH_EVENTS_RPS', 1000),
  eventCount: num('BENCH_EVENT_COUNT', 100_000),
  webhookEventsRps: num('BENCH_WEBHOOK_EVENTS_RPS', 20),
  limiterStepSeconds: num('BENCH_LIMITER_STEP_SECONDS', 10),
};
const budgetSeconds = num('BENCH_BUDGET_SECONDS', 285);
const outFile = process.env.BENCH_OUT ?? path.join(__dirname, 'results', 'latest.json');
const only = process.env.BENCH_ONLY ? new Set(process.env.BENCH_ONLY.split(',')) : null;
const wanted = (name: string) => !only || only.has(name);

const log = (line: string) => process.stdout.write(`${line}\n`);

async function main() {
  const started = performance.now();
  const budget: Budget = { left: () => budgetSeconds - (performance.now() - started) / 1000 };
  const machine = {
    cores: os.cpus().length,
    cpu_model: os.cpus()[0]?.model ?? 'unknown',
    memory_gb: Math.round((os.totalmem() / 2 ** 30) * 10) / 10,
    node_version: process.version,
    platform: `${os.platform()} ${os.release()}`,
    date: new Date().toISOString(),
    loadavg_at_start: os.loadavg().map((x) => Math.round(x * 100) / 100),
  };
  const stack = await startBenchStack({ rateLimitPerSecond: 1_000_000_000, log });
  const scenarios: Record<string, unknown> = {};
  try {
    log(`stack up in ${Math.round((performance.now() - started) / 1000)} s (API ${stack.api.url}, Temporal ${stack.temporal.address})`);
    // Time held back for the scenarios after the ladders: two fixed steps, the limiter step and drains.
    const fixed = settings.stepSeconds * 2 + settings.limiterStepSeconds + 30;
    let paymentMax: number | null = null;
    if (wanted('create_payment')) {
      log('create_payment');
      const r = await createPaymentScenario(stack, settings, budget, fixed + settings.stepSeconds * 2, log);
      scenarios.create_payment = r;
      paymentMax = r.max_sustained_rps;
    }
    if (wanted('temporal_start_baseline')) {
      log('temporal_start_baseline');
      scenarios.temporal_start_baseline = await temporalStartBaseline(stack, settings, budget, fixed, log);
    }
    if (wanted('rate_limiter')) {
      log('rate_limiter');
      scenarios.rate_limiter = await limiterCost(stack, settings, paymentMax ?? settings.paymentRates[0], log);
    }
    if (wanted('list_events')) {
      log('list_events');
      scenarios.list_events = await listEventsScenario(stack, settings, log);
    }
    if (wanted('webhook_delivery')) {
      log('webhook_delivery');
      scenarios.webhook_delivery = await webhookDeliveryScenario(stack, settings, log);
    }
  } finally {
    await stack.stop();
  }
  const result = {
    machine: { ...machine, loadavg_at_end: os.loadavg().map((x) => Math.round(x * 100) / 100) },
    settings: { ...settings, p50_limit_ms: P50_LIMIT_MS, budget_seconds: budgetSeconds },
    duration_s: Math.round((performance.now() - started) / 1000),
    scenarios,
  };
  fs.mkdirSync(path.dirname(outFile), { recursive: true });
  fs.writeFileSync(outFile, `${JSON.stringify(result, null, 2)}\n`);
  printTable(result.scenarios);
  log(`\n${result.duration_s} s; wrote ${path.relative(process.cwd(), outFile)}`);
}

function printTable(scenarios: Record<string, any>) {
  const rows: string[][] = [['scenario', 'figure', 'p50 ms', 'p99 ms', 'errors', 'notes']];
  const ladderRow = (name: string, r: LadderResult | undefined) => {
    if (!r) return;
    rows.push([name, `max_sustained_rps ${r.max_sustained_rps ?? '—'}`, String(r.p50_ms ?? '—'), String(r.p99_ms ?? '—'), String(r.errors ?? '—'), r.stopped]);
  };
  ladderRow('create_payment', scenarios.create_payment);
  ladderRow('temporal_start_baseline', scenarios.temporal_start_baseline);
  const le = scenarios.list_events;
  if (le) rows.push(le.skipped ? ['list_events', `skipped: ${le.skipped}`, '', '', '', ''] : ['list_events', `rps ${le.rps} (target ${le.target_rps})`, String(le.p50_ms), String(le.p99_ms), String(le.errors), `${le.events_in_table} events`]);
  const wh = scenarios.webhook_delivery;
  if (wh) rows.push(wh.skipped ? ['webhook_delivery', `skipped: ${wh.skipped}`, '', '', '', ''] : ['webhook_delivery', `deliveries_per_s ${wh.deliveries_per_s}`, String(wh.first_attempt_p50_ms), String(wh.first_attempt_p99_ms), String(wh.undelivered), `${wh.delivered}/${wh.events} delivered (events at ${wh.event_rps}/s)`]);
  const rl = scenarios.rate_limiter;
  if (rl) {
    const d = rl.default_limit_step;
    rows.push(['rate_limiter', `+${rl.extra_ms_per_request} ms/request (serial)`, String(d.p50_ms), String(d.p99_ms), String(d.errors), `default limit, create_payment at ${d.target_rps}/s; one bucket ${rl.one_bucket_calls_per_s_10_in_flight}/s`]);
  }
  const widths = rows[0].map((_, i) => Math.max(...rows.map((r) => r[i].length)));
  log('');
  for (const [i, r] of rows.entries()) {
    log(r.map((c, j) => c.padEnd(widths[j])).join('  '));
    if (i === 0) log(widths.map((w) => '-'.repeat(w)).join('  '));
  }
  for (const name of ['create_payment', 'temporal_start_baseline']) {
    const r = scenarios[name] as LadderResult | undefined;
    if (!r?.steps?.length) continue;
    log(`\n${name} steps`);
    for (const s of r.steps) {
      log(`  ${String(s.target_rps).padStart(5)}/s → ${String(s.achieved_rps).padStart(7)}/s  p50 ${String(s.p50_ms).padStart(6)}  p99 ${String(s.p99_ms).padStart(6)}  errors ${s.errors}  backlog ${s.backlog_start}→${s.backlog_end} (max ${s.backlog_max})  ${s.sustained ? 'held' : `✗ ${s.failed.join('; ')}`}`);
    }
  }
}

main().then(
  () => process.exit(0),
  (err) => {
    process.stderr.write(`bench failed: ${err?.stack ?? err}\n`);
    process.exit(1);
  },
);
