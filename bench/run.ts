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
/** start, start·factor, start·factor², … (rounded up) while ≤ max. */
function geometric(start: number, factor: number, max: number): number[] {
  const out: number[] = [];
  for (let r = start; r <= max; r *= factor) out.push(Math.ceil(r));
  return [...new Set(out)];
}
const rates = (name: string, fallback: number[]) =>
  process.env[name] ? process.env[name]!.split(',').map((x) => Number(x.trim())).filter((x) => x > 0) : fallback;

const settings: Settings = {
  stepSeconds: num('BENCH_STEP_SECONDS', 30),
  // Equal to the step: every step is a full one (see ladder). Set it lower to search faster.
  probeSeconds: num('BENCH_PROBE_SECONDS', 30),
  warmupSeconds: num('BENCH_WARMUP_SECONDS', 3),
  // How long webhook_delivery waits for the last deliveries.
  drainSeconds: num('BENCH_DRAIN_SECONDS', 15),
  // Empty: derived from the baseline's result (see paymentLadder).
  paymentRates: rates('BENCH_PAYMENT_RATES', []),
  // 60/s, then 12 % more each rung: 68, 76, 85, 95, … (10 % less each step down if 60/s fails)
  temporalRates: rates('BENCH_TEMPORAL_RATES', geometric(60, 1.12, 5000)),
  eventsRps: num('BENCH_EVENTS_RPS', 1000),
  eventsSeconds: num('BENCH_EVENTS_SECONDS', 20),
  eventCount: num('BENCH_EVENT_COUNT', 100_000),
  webhookEventsRps: num('BENCH_WEBHOOK_EVENTS_RPS', 20),
  webhookSeconds: num('BENCH_WEBHOOK_SECONDS', 15),
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
    log(`stack up in ${Math.round((performance.now() - started) / 1000)} s (API ${stack.api.url}, Temporal ${stack.temporalAddress})`);
    // Time held back for the scenarios after the ladders: list_events (seed, warm-up, one step),
    // webhook_delivery (one step and its drain) and the limiter's statement timings.
    const fixed = settings.eventsSeconds + settings.webhookSeconds + 25;
    // What create_payment needs after the baseline: a fresh dev server, warm-up and two full steps (80 %, then 88 % or 72 %).
    const paymentShare = 20 + 2 * (settings.stepSeconds + 5);
    let baselineMax: number | null = null;
    if (wanted('temporal_start_baseline')) {
      log('temporal_start_baseline');
      const r = await temporalStartBaseline(stack, settings, budget, fixed + paymentShare, log);
      scenarios.temporal_start_baseline = r;
      baselineMax = r.max_sustained_rps;
    }
    if (wanted('create_payment')) {
      const rates = paymentLadder(settings, baselineMax);
      log(`create_payment (${rates.join(', ')}/s)`);
      scenarios.create_payment = await createPaymentScenario(stack, { ...settings, paymentRates: rates }, budget, fixed, log);
    }
    // webhook_delivery measures latency on a fresh dev server, not on one the ladders loaded.
    if (wanted('webhook_delivery')) await stack.restartTemporal();
    if (wanted('rate_limiter')) {
      log('rate_limiter');
      scenarios.rate_limiter = await limiterCost(stack, log);
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

/**
 * The create_payment ladder. Unless BENCH_PAYMENT_RATES is given, it starts at 80 % of the
 * baseline's sustained rate (the issue's target, tested first) and climbs 10 % a rung, so the
 * 5-minute budget goes on the rates that decide the ratio.
 */
function paymentLadder(s: Settings, baselineMax: number | null): number[] {
  if (s.paymentRates.length > 0) return s.paymentRates;
  return geometric(baselineMax ? Math.ceil(baselineMax * 0.8) : 10, baselineMax ? 1.1 : 1.5, 5000);
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
  if (le) rows.push(le.skipped ? ['list_events', `skipped: ${le.skipped}`, '', '', '', ''] : ['list_events', `rps ${le.rps} (target ${le.target_rps})`, String(le.p50_ms), String(le.p99_ms), String(le.errors), `${le.events_in_table} events, one API process`]);
  if (le?.two_api_processes) {
    const two = le.two_api_processes;
    rows.push(['list_events', `rps ${two.rps} (target ${le.target_rps})`, String(two.p50_ms), String(two.p99_ms), String(two.errors), 'the same over two API processes']);
  }
  const wh = scenarios.webhook_delivery;
  if (wh) rows.push(wh.skipped ? ['webhook_delivery', `skipped: ${wh.skipped}`, '', '', '', ''] : ['webhook_delivery', `deliveries_per_s ${wh.deliveries_per_s}`, String(wh.first_attempt_p50_ms), String(wh.first_attempt_p99_ms), String(wh.undelivered), `${wh.delivered}/${wh.events} delivered (events at ${wh.event_rps}/s)`]);
  const rl = scenarios.rate_limiter;
  if (rl) {
    rows.push(['rate_limiter', `+${rl.extra_ms_per_call} ms/statement (serial)`, '', '', '', `one statement per ${rl.requests_per_call_at_default_limit} requests at the default limit; one bucket ${rl.one_bucket_calls_per_s_10_in_flight} statements/s`]);
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
      log(`  ${s.phase.padEnd(7)} ${String(s.target_rps).padStart(5)}/s × ${String(s.seconds).padStart(4)} s → ${String(s.achieved_rps).padStart(7)}/s  p50 ${String(s.p50_ms).padStart(6)}  p99 ${String(s.p99_ms).padStart(6)}  errors ${s.errors}  backlog ${s.backlog_start}→${s.backlog_end} (max ${s.backlog_max})  ${s.sustained ? 'held' : `✗ ${s.failed.join('; ')}`}`);
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
