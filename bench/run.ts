/**
 * `npm run bench`: measures the built API on the local PostgreSQL and Redis and prints a table;
 * writes bench/results/latest.json. See docs/performance.md for what each figure means.
 *
 * Phases: seed (API process) → baseline server (bare Fastify + pg, same SQL) and API, read and write
 * in alternating rounds, with the peer (the same read as a typical NestJS + passport-jwt + TypeORM app,
 * peer-server.ts) measured on the read in the same rounds → CPU profile pass → webhook pipeline (API + worker
 * process) → AI credits. Every process, the database and the Redis keys it made are removed at the end, also
 * after a failure.
 *
 * Env: BENCH_DURATION (s per measured run, 10), BENCH_ROUNDS (alternating baseline/API rounds, 3;
 * the median round counts), BENCH_WARMUP (s before each measured run, 3), BENCH_WARMUP_PASS (s of reads and of
 * writes each server serves once before the first round, 20; 0 skips it), BENCH_CONNECTIONS (16),
 * BENCH_WEBHOOK_RATE (changes/s, 200), BENCH_WEBHOOK_SECONDS (30, changes committed in SQL),
 * BENCH_WEBHOOK_API_SECONDS (30, changes through the API), BENCH_WEBHOOK_KNEE_RATES (the knee search's
 * rates in SQL, 200,400,600,800,1000,1200; 0 skips it), BENCH_WEBHOOK_KNEE_SECONDS (5 per rate),
 * BENCH_WEBHOOK_ENDPOINT_CONCURRENCY (the pipeline worker's WEBHOOK_ENDPOINT_CONCURRENCY, 8), BENCH_PROFILE (1; 0 skips
 * the profile pass), BENCH_PROFILE_WORKER (1 profiles the worker during the webhook pipeline: slower, for
 * diagnosis), BENCH_LOG_LEVEL (the API's LOG_LEVEL, info; the worker stays at info or lower), BENCH_KEEP_DB (keep the
 * database), BENCH_FAIRNESS_BACKLOG (1000 events queued for the receiver that hangs), BENCH_FAIRNESS_RATE (50, the
 * other store's events/s), BENCH_FAIRNESS_SECONDS (30, as long as the receiver hangs),
 * BENCH_SCENARIOS (comma-separated, all by default: api, profile, webhooks, fairness, credits, growth — to run only
 * some; results of the others are left out of latest.json), BENCH_COMPARE_MAIN (the built main.js of another checkout,
 * e.g. main's: the API scenario then measures that build too in every round, for a before/after of a change),
 * BENCH_GROWTH_SIZES (orders per step of the growth scenario, 1000,100000,1000000), BENCH_GROWTH_REQUESTS (sequential
 * requests per route and size, 200).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Redis } from 'ioredis';
import { adminToken, appEnv, merchant, RESULTS_DIR, seedProducts, tell } from './lib/app.js';
import { startApi, startBaseline, startPeer } from './lib/app.js';
import type { Child } from './lib/child.js';
import { call, sleep } from './lib/http.js';
import { summariseProfile, type ProfileShare, type ProfileSummary } from './lib/profile.js';
import { createServices } from './lib/services.js';
import type { LoadResult } from './lib/load.js';
import { checkPeerPage, measureRead, measureWrite, type ApiResults, type ApiTargets } from './scenarios/api.js';
import { measureCredits, type CreditResults } from './scenarios/credits.js';
import { measureFairness, type FairnessResults } from './scenarios/fairness.js';
import { GROWTH_QUERIES, measureGrowth, type GrowthResults } from './scenarios/growth.js';
import { measureKnee, measureWebhooks, type KneeResults, type WebhookResults } from './scenarios/webhooks.js';

/** The scenarios, in the order they run. */
const SCENARIOS = ['api', 'profile', 'webhooks', 'fairness', 'credits', 'growth'] as const;
const setting = (name: string, fallback: number) => Number(process.env[name] ?? fallback);
const settings = {
  durationSec: setting('BENCH_DURATION', 10),
  rounds: Math.max(1, setting('BENCH_ROUNDS', 3)),
  warmupSec: setting('BENCH_WARMUP', 3),
  /** Seconds of reads, then of writes, each server serves once before the first round (0: none). */
  warmupPassSec: setting('BENCH_WARMUP_PASS', 20),
  connections: setting('BENCH_CONNECTIONS', 16),
  webhookRate: setting('BENCH_WEBHOOK_RATE', 200),
  webhookSec: setting('BENCH_WEBHOOK_SECONDS', 30),
  webhookApiSec: setting('BENCH_WEBHOOK_API_SECONDS', 30),
  kneeRates: (process.env.BENCH_WEBHOOK_KNEE_RATES ?? '200,400,600,800,1000,1200')
    .split(',')
    .map(Number)
    .filter((rate) => rate > 0),
  kneeSec: setting('BENCH_WEBHOOK_KNEE_SECONDS', 5),
  webhookEndpointConcurrency: setting('BENCH_WEBHOOK_ENDPOINT_CONCURRENCY', 8),
  fairnessBacklog: setting('BENCH_FAIRNESS_BACKLOG', 1000),
  fairnessRate: setting('BENCH_FAIRNESS_RATE', 50),
  fairnessSec: setting('BENCH_FAIRNESS_SECONDS', 30),
  compareMain: process.env.BENCH_COMPARE_MAIN ?? '',
  profile: process.env.BENCH_PROFILE !== '0',
  profileWorker: process.env.BENCH_PROFILE_WORKER === '1',
  logLevel: process.env.BENCH_LOG_LEVEL ?? 'info',
  scenarios: (process.env.BENCH_SCENARIOS ?? SCENARIOS.join(','))
    .split(',')
    .map((name) => name.trim())
    .filter(Boolean),
  growthSizes: (process.env.BENCH_GROWTH_SIZES ?? '1000,100000,1000000').split(',').map(Number),
  growthRequests: setting('BENCH_GROWTH_REQUESTS', 200),
};
for (const name of settings.scenarios) {
  if (!(SCENARIOS as readonly string[]).includes(name))
    throw new Error(`BENCH_SCENARIOS: unknown scenario "${name}" (known: ${SCENARIOS.join(', ')})`);
}
const selected = (name: (typeof SCENARIOS)[number]) => settings.scenarios.includes(name);

const log = (message: string) => console.log(`[bench ${new Date().toISOString().slice(11, 19)}] ${message}`);

async function machine(db: import('pg').Pool, redisUrl: string) {
  const redis = new Redis(redisUrl);
  const info = await redis.info('server');
  redis.disconnect();
  return {
    cpu: os.cpus()[0]?.model ?? 'unknown',
    cores: os.cpus().length,
    memory_gib: Math.round(os.totalmem() / 2 ** 30),
    os: `${os.type()} ${os.release()}`,
    node: process.version,
    postgres: (await db.query<{ server_version: string }>('SHOW server_version')).rows[0].server_version,
    redis: /redis_version:(\S+)/.exec(info)?.[1] ?? 'unknown',
  };
}

/** Runs `profile` seconds of reads and of writes against a profiled API and summarises where the time went. */
async function profilePass(
  env: Record<string, string>,
  seed: { token: string; storeId: string; productIds: string[] },
): Promise<{ read: ProfileSummary; write: ProfileSummary }> {
  const dir = path.join(RESULTS_DIR, 'profiles');
  fs.rmSync(dir, { recursive: true, force: true });
  fs.mkdirSync(dir, { recursive: true });
  const api = await startApi(env, 'api', { name: 'app-api-profiled', profileDir: dir });
  try {
    const summaries: ProfileSummary[] = [];
    for (const phase of ['read', 'write'] as const) {
      await tell(api, 'profile:start');
      const target = { url: api.url, token: seed.token, storeId: seed.storeId, productIds: seed.productIds };
      const pass = { durationSec: Math.min(settings.durationSec, 8), warmupSec: 1, connections: settings.connections };
      await (phase === 'read' ? measureRead(target, pass) : measureWrite(target, pass));
      const { written } = await tell(api, 'profile:stop');
      summaries.push(summariseProfile(written));
    }
    return { read: summaries[0], write: summaries[1] };
  } finally {
    await api.stop();
  }
}

/** A round's CPU per request of the API and the baseline, and their ratio (latest.json's `rounds`). */
const cpuOfRound = (api: LoadResult, baseline: LoadResult) => ({
  api_cpu_ms: api.cpuMsPerRequest,
  baseline_cpu_ms: baseline.cpuMsPerRequest,
  cpu_ratio: (api.cpuMsPerRequest ?? NaN) / (baseline.cpuMsPerRequest ?? NaN),
});

const ratio = (value: number, base: number) => (base > 0 ? `${Math.round((100 * value) / base)}%` : '—');
const fixed = (value: number, digits = 0) => (Number.isFinite(value) ? value.toFixed(digits) : '—');

function table(rows: string[][]): string {
  const widths = rows[0].map((_, column) => Math.max(...rows.map((row) => row[column].length)));
  const line = (row: string[]) =>
    row.map((cell, column) => (column === 0 ? cell.padEnd(widths[column]) : cell.padStart(widths[column]))).join('  ');
  return [line(rows[0]), widths.map((width) => '-'.repeat(width)).join('  '), ...rows.slice(1).map(line)].join('\n');
}

interface ApiRound {
  baseline: ApiResults;
  api: ApiResults;
  peer: LoadResult;
  compared?: ApiResults;
}

/** The API's figure over the baseline's, each round's own, then the median over the rounds. */
interface PairedRatios {
  rps: number;
  cpu: number;
}

interface Results {
  baseline?: ApiResults;
  /** The API against the baseline, round by round (their medians): see PairedRatios. */
  round_ratios?: { read: PairedRatios; write: PairedRatios };
  api?: ApiResults;
  /** The peer (peer-server.ts): the same read as a typical NestJS app writes it, measured in the same rounds. */
  peer?: { read: LoadResult };
  /** BENCH_COMPARE_MAIN's build, measured in the same rounds. */
  compared?: ApiResults;
  webhooks?: { sql: WebhookResults; api: WebhookResults; knee?: KneeResults };
  fairness?: FairnessResults;
  credits?: CreditResults;
  growth?: GrowthResults;
  profile: { read?: ProfileSummary; write?: ProfileSummary; worker?: ProfileSummary };
}

function report(results: Results): string {
  const { baseline, api, webhooks, fairness, credits } = results;
  const lines: string[] = [];
  if (baseline && api) {
    const peer = results.peer?.read;
    const loadRow = (name: string, ours: LoadResult, base: LoadResult, versusPeer?: LoadResult) => [
      name,
      fixed(ours.rps),
      fixed(ours.p50, 1),
      fixed(ours.p99, 1),
      String(ours.errors),
      fixed(base.rps),
      fixed(base.p50, 1),
      fixed(base.p99, 1),
      ratio(ours.rps, base.rps),
      versusPeer ? ratio(ours.rps, versusPeer.rps) : '',
      `${fixed(ours.cpuMsPerRequest ?? NaN, 2)} / ${fixed(base.cpuMsPerRequest ?? NaN, 2)}`,
    ];
    lines.push(
      '',
      table([
        [
          'API (autocannon)',
          'req/s',
          'p50 ms',
          'p99 ms',
          'errors',
          'baseline req/s',
          'p50 ms',
          'p99 ms',
          'API/baseline',
          'API/peer',
          'CPU ms/req row / baseline',
        ],
        loadRow('read: GET products (JWT + RLS tx)', api.read, baseline.read, peer),
        ...(peer ? [loadRow('peer read: NestJS + passport-jwt + TypeORM', peer, baseline.read)] : []),
        loadRow('write: POST orders', api.write, baseline.write),
        ...(results.compared
          ? [
              loadRow('compared build: read', results.compared.read, baseline.read, peer),
              loadRow('compared build: write', results.compared.write, baseline.write),
            ]
          : []),
      ]),
    );
    if (results.round_ratios) {
      const { read, write } = results.round_ratios;
      lines.push(
        `the API against the baseline, median of the rounds' own ratios: read ${ratio(read.rps, 1)} of its req/s ` +
          `at ${fixed(read.cpu, 2)}× its CPU per request, write ${ratio(write.rps, 1)} at ${fixed(write.cpu, 2)}×`,
      );
    }
    if (peer) {
      const cpu = (api.read.cpuMsPerRequest ?? NaN) / (peer.cpuMsPerRequest ?? NaN);
      lines.push(
        `read against the peer: the API serves ${ratio(api.read.rps, peer.rps)} of its req/s at ` +
          `${fixed(api.read.cpuMsPerRequest ?? NaN, 2)} ms CPU per request to its ` +
          `${fixed(peer.cpuMsPerRequest ?? NaN, 2)} (${fixed(cpu, 2)}×)`,
      );
    }
  }
  if (webhooks) {
    lines.push(
      '',
      table([
        [
          'Webhook pipeline (order.updated)',
          'changes',
          'committed/s',
          'delivered',
          'lost',
          'dup',
          'deliv/s',
          'p50 ms',
          'p95 ms',
          'p99 ms',
          'max ms',
        ],
        ...(['sql', 'api'] as const).flatMap((from) => {
          const run = webhooks[from];
          const label = from === 'sql' ? 'changes committed in SQL' : 'changes through PATCH /orders/{id}';
          return [
            [
              `${label}, ${run.rate}/s for ${run.durationSec} s: commit→arrival`,
              String(run.changes),
              fixed(run.committedRate, 1),
              String(run.delivered),
              String(run.lost),
              String(run.duplicates),
              fixed(run.deliveriesPerSec, 1),
              ...[
                run.commitToArrival.p50,
                run.commitToArrival.p95,
                run.commitToArrival.p99,
                run.commitToArrival.max,
              ].map((v) => fixed(v, 1)),
            ],
            [
              '  lower bound: answer→arrival',
              ...Array<string>(6).fill(''),
              ...[
                run.answerToArrival.p50,
                run.answerToArrival.p95,
                run.answerToArrival.p99,
                run.answerToArrival.max,
              ].map((v) => fixed(v, 1)),
            ],
          ];
        }),
      ]),
    );
    const knee = webhooks.knee;
    if (knee) {
      lines.push(
        '',
        table([
          [
            `Webhook knee (SQL, ${knee.stepSec} s per rate)`,
            'changes',
            'committed/s',
            'delivered',
            'lost',
            'deliv/s',
            'p50 ms',
            'p95 ms',
            'p99 ms',
            'max ms',
            'ok',
          ],
          ...knee.steps.map((step) => [
            `${step.rate}/s`,
            String(step.changes),
            fixed(step.committedRate, 1),
            String(step.delivered),
            String(step.lost),
            fixed(step.deliveriesPerSec, 1),
            ...[step.p50, step.p95, step.p99, step.max].map((v) => fixed(v, 1)),
            step.passed ? 'yes' : 'no',
          ]),
        ]),
        `knee (highest rate with p95 < ${knee.p95LimitMs} ms and ` +
          `0 lost): ${knee.knee === null ? 'none' : `${knee.knee}/s`}`,
      );
    }
  }
  if (fairness) {
    const { flowing, hanging } = fairness;
    lines.push(
      '',
      table([
        [
          `Fair delivery: A hangs with ${fairness.backlog} queued, ` +
            `B at ${fairness.rate}/s for ${fairness.durationSec} s`,
          'events',
          'delivered',
          'lost',
          'p50 ms',
          'p95 ms',
          'p99 ms',
          'max ms',
        ],
        [
          'B (the other store): commit→arrival',
          String(flowing.events),
          String(flowing.delivered),
          String(flowing.lost),
          ...[
            flowing.commitToArrival.p50,
            flowing.commitToArrival.p95,
            flowing.commitToArrival.p99,
            flowing.commitToArrival.max,
          ].map((v) => fixed(v, 1)),
        ],
        [
          'A (hung, then recovered)',
          String(hanging.events),
          String(hanging.delivered),
          String(hanging.lost),
          '',
          '',
          '',
          '',
        ],
      ]),
      `A while it hung: ${hanging.sentWhileHanging} requests sent, ` +
        `at most ${hanging.maxInFlight} in flight; after it recovered: ` +
        `all delivered in ${hanging.drainSec} s; ${hanging.attemptsRecorded} ` +
        `attempts recorded for ${hanging.requestsReceived} requests received; ` +
        `deliveries ${JSON.stringify(hanging.deliveryStatuses)}`,
    );
  }
  if (credits) {
    lines.push(
      '',
      table([
        ['AI credits (local provider)', 'req/s', 'p50 ms', 'p99 ms', 'errors', 'books'],
        [
          `research-social-context, ${settings.connections} connections`,
          fixed(credits.load.rps),
          fixed(credits.load.p50, 1),
          fixed(credits.load.p99, 1),
          String(credits.load.errors),
          credits.ledger.consistent
            ? `ok: ${credits.ledger.succeeded} × ${credits.ledger.cost} = ${credits.ledger.spent} spent = ledger`
            : `MISMATCH ${JSON.stringify(credits.ledger)}`,
        ],
        [
          `${credits.overdraft.calls} parallel calls on ${credits.overdraft.balanceBefore} credits`,
          '',
          '',
          '',
          '',
          credits.overdraft.consistent
            ? `ok: ${credits.overdraft.succeeded} served, ${credits.overdraft.refused402} ` +
              `× 402, balance ${credits.overdraft.balanceAfter}`
            : `MISMATCH ${JSON.stringify(credits.overdraft)}`,
        ],
      ]),
    );
  }
  if (results.growth) lines.push('', growthReport(results.growth));
  for (const phase of ['read', 'write', 'worker'] as const) {
    const summary = results.profile[phase];
    if (!summary) continue;
    const what = phase === 'worker' ? 'the worker during the webhook pipeline' : `the API during ${phase}s`;
    lines.push(
      '',
      `CPU profile of ${what} (busy ${summary.busyPercent}% of samples): self time by package | by function`,
    );
    for (let row = 0; row < Math.max(summary.byPackage.length, summary.byFunction.length); row++) {
      const cell = (share?: ProfileShare) => (share ? `${String(share.percent).padStart(5)}%  ${share.name}` : '');
      lines.push(`  ${cell(summary.byPackage[row]).padEnd(40)}${cell(summary.byFunction[row])}`);
    }
  }
  return lines.join('\n');
}

function growthReport(growth: GrowthResults): string {
  const { steps } = growth;
  return table([
    ['Growth: p50 / p99 ms (sequential)', ...steps.map((step) => `${step.size} orders`), 'p50 ratio'],
    ...GROWTH_QUERIES.map((name) => [
      name,
      ...steps.map((step) => `${fixed(step.latency[name].p50, 1)} / ${fixed(step.latency[name].p99, 1)}`),
      `${fixed(growth.p50_ratio[name], 2)}×`,
    ]),
    ...GROWTH_QUERIES.filter((name) => growth.plans[name]?.length).map((name) => [
      `  in the database (EXPLAIN ANALYZE): ${name}`,
      ...steps.map((step) => fixed(step.database_ms[name], 2)),
      `${fixed(steps[steps.length - 1].database_ms[name] / steps[0].database_ms[name], 2)}×`,
    ]),
    [
      'seed time s',
      ...steps.map((step) => fixed(step.seed_s, 1)),
      growth.consistent ? 'data consistent' : 'DATA INCONSISTENT',
    ],
    ['load average (1 min) after', ...steps.map((step) => fixed(step.load_avg, 1)), ''],
  ]);
}

async function main(): Promise<void> {
  const started = Date.now();
  const services = await createServices();
  const children: Child[] = [];
  const keep = (child: Child) => (children.push(child), child);
  try {
    const env = { ...appEnv(services), LOG_LEVEL: settings.logLevel };
    log('seeding through the API');
    let api = keep(await startApi(env, 'api'));
    const owner = await merchant(api.url, 'owner');
    const productIds = await seedProducts(api.url, owner, 50);
    const admin = await adminToken(api.url);
    await call('POST', `${api.url}/functions/v1/credits/grant`, {
      token: admin,
      body: { store_id: owner.storeId, amount: 1_000_000, reason: 'benchmark' },
    });
    const small = await merchant(api.url, 'small');
    await api.stop();

    const results: Results = { profile: {} };
    const rounds: ApiRound[] = [];
    /** Measured runs of the API scenario with failed requests: their figures compare nothing. */
    const failedLoads: string[] = [];
    const apiSettings = {
      durationSec: settings.durationSec,
      warmupSec: settings.warmupSec,
      connections: settings.connections,
    };
    api = keep(await startApi(env, 'api'));

    if (selected('api')) {
      // Baseline and API alternate, round after round, and each figure is the median round's: the two
      // cores are shared with everything else, and one pass of each drifts by ±20 % between runs. The
      // order turns from round to round (below).
      log(`API beside the bare Fastify + pg baseline: read and write, ${settings.rounds} alternating rounds`);
      const baselineServer = keep(await startBaseline(env, owner.token));
      const peerServer = keep(await startPeer(env));
      const peerProducts = await checkPeerPage(api.url, peerServer.url, owner.token, owner.storeId);
      log(`the peer answers the API's first page (${peerProducts} products): measured on the read in every round`);
      const compared = settings.compareMain
        ? keep(await startApi(env, 'api', { name: 'app-api-compared', main: path.resolve(settings.compareMain) }))
        : null;
      const withToken = { token: owner.token, storeId: owner.storeId, productIds };
      const servers: { name: 'baseline' | 'api' | 'peer' | 'compared'; target: ApiTargets; writes: boolean }[] = [
        {
          name: 'baseline',
          target: { url: baselineServer.url, storeId: owner.storeId, productIds, pid: baselineServer.process.pid },
          writes: true,
        },
        { name: 'api', target: { url: api.url, ...withToken, pid: api.process.pid }, writes: true },
        { name: 'peer', target: { url: peerServer.url, ...withToken, pid: peerServer.process.pid }, writes: false },
        ...(compared
          ? [
              {
                name: 'compared' as const,
                target: { url: compared.url, ...withToken, pid: compared.process.pid },
                writes: true,
              },
            ]
          : []),
      ];
      const writers = servers.filter((server) => server.writes);
      /** `list` started `by` places later: each server takes another place in each round. */
      const rotated = <T>(list: T[], by: number) => list.map((_, index) => list[(index + by) % list.length]!);
      if (settings.warmupPassSec > 0) {
        // A freshly started server spends its first tens of seconds compiling: V8 optimises its hot functions
        // one by one, on a helper thread whose CPU time counts for the process. The API runs far more code per
        // request than the baseline, so in a first round its CPU per request held up to 0.5 ms of compiling
        // (a write's 2.9 ms, against 2.1 in the rounds after). Each server serves the same unmeasured load
        // first, so that the rounds compare servers as they run, not as they start.
        log(`warm-up pass: ${settings.warmupPassSec} s of reads and of writes on each server, not measured`);
        const pass = { durationSec: settings.warmupPassSec, warmupSec: 0, connections: settings.connections };
        for (const server of servers) await measureRead(server.target, pass);
        for (const server of writers) await measureWrite(server.target, pass);
      }
      for (let round = 1; round <= settings.rounds; round++) {
        // Every server's read, then every writer's write, each in an order that turns from round to round.
        // A run right after a write run shares the two cores with what PostgreSQL still does for it (WAL,
        // dirty pages), which raised the CPU per request of whichever server came next: in a fixed order
        // the same server took that in every round.
        const reads = new Map<string, LoadResult>();
        const writes = new Map<string, LoadResult>();
        for (const server of rotated(servers, round - 1))
          reads.set(server.name, await measureRead(server.target, apiSettings));
        for (const server of rotated(writers, round - 1))
          writes.set(server.name, await measureWrite(server.target, apiSettings));
        const both = (name: string): ApiResults => ({ read: reads.get(name)!, write: writes.get(name)! });
        const baselineRound = both('baseline');
        const apiRound = both('api');
        const peerRound = reads.get('peer')!;
        const comparedRound = compared ? both('compared') : undefined;
        rounds.push({ baseline: baselineRound, api: apiRound, peer: peerRound, compared: comparedRound });
        if (comparedRound) {
          log(
            `round ${round}, the compared build: read ${fixed(comparedRound.read.rps)} ` +
              `req/s, write ${fixed(comparedRound.write.rps)} req/s; ` +
              `CPU ms per request: read ${fixed(comparedRound.read.cpuMsPerRequest ?? NaN, 2)}, ` +
              `write ${fixed(comparedRound.write.cpuMsPerRequest ?? NaN, 2)}`,
          );
        }
        log(
          `round ${round}: read ${fixed(apiRound.read.rps)} / ${fixed(baselineRound.read.rps)} req/s, ` +
            `write ${fixed(apiRound.write.rps)} / ${fixed(baselineRound.write.rps)} req/s; CPU ms per request: ` +
            `read ${fixed(apiRound.read.cpuMsPerRequest ?? NaN, 2)} ` +
            `/ ${fixed(baselineRound.read.cpuMsPerRequest ?? NaN, 2)}, ` +
            `write ${fixed(apiRound.write.cpuMsPerRequest ?? NaN, 2)} / ` +
            `${fixed(baselineRound.write.cpuMsPerRequest ?? NaN, 2)}` +
            `; the peer's read ${fixed(peerRound.rps)} req/s, ` +
            `${fixed(peerRound.cpuMsPerRequest ?? NaN, 2)} ms CPU per request`,
        );
      }
      await baselineServer.stop();
      await peerServer.stop();
      await compared?.stop();
      const median = (pick: (round: ApiRound) => LoadResult) =>
        rounds.map(pick).sort((a, b) => a.rps - b.rps)[Math.floor(rounds.length / 2)];
      results.baseline = { read: median((r) => r.baseline.read), write: median((r) => r.baseline.write) };
      results.api = { read: median((r) => r.api.read), write: median((r) => r.api.write) };
      results.peer = { read: median((r) => r.peer) };
      // The rounds' own ratios: the API and the baseline of one round ran a few seconds apart, on the machine
      // as it was then, where the median rounds above may come from different rounds.
      const pairedMedian = (values: number[]) => values.sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
      const paired = (kind: 'read' | 'write'): PairedRatios => ({
        rps: pairedMedian(rounds.map((r) => r.api[kind].rps / r.baseline[kind].rps)),
        cpu: pairedMedian(rounds.map((r) => cpuOfRound(r.api[kind], r.baseline[kind]).cpu_ratio)),
      });
      results.round_ratios = { read: paired('read'), write: paired('write') };
      if (compared)
        results.compared = { read: median((r) => r.compared!.read), write: median((r) => r.compared!.write) };
      rounds.forEach((round, index) => {
        const runs: [string, LoadResult | undefined][] = [
          ['baseline read', round.baseline.read],
          ['baseline write', round.baseline.write],
          ['API read', round.api.read],
          ['API write', round.api.write],
          ['peer read', round.peer],
          ['compared read', round.compared?.read],
          ['compared write', round.compared?.write],
        ];
        for (const [name, run] of runs) {
          if (!run || run.errors === 0) continue;
          const failed = `${run.errors} of ${run.requests} failed ${JSON.stringify(run.status)}`;
          failedLoads.push(`round ${index + 1}, ${name}: ${failed}`);
        }
      });
    }

    if (selected('profile')) {
      log('CPU profile pass');
      await api.stop();
      Object.assign(
        results.profile,
        await profilePass(env, { token: owner.token, storeId: owner.storeId, productIds }),
      );
      api = keep(await startApi(env, 'api'));
    }

    if (selected('webhooks')) {
      log(
        `webhook pipeline: ${settings.webhookRate} changes/s, ${settings.webhookSec} ` +
          `s in SQL and ${settings.webhookApiSec} s through the API`,
      );
      const workerProfiles = path.join(RESULTS_DIR, 'profiles', 'worker');
      if (settings.profileWorker) fs.mkdirSync(workerProfiles, { recursive: true });
      // The pipeline's own capacity: one webhook may use every worker slot, as before per-webhook slots
      // (with the default of 2, one webhook's rate is capped at 2 ÷ the time a slot is held).
      const workerEnv = { ...env, WEBHOOK_ENDPOINT_CONCURRENCY: String(settings.webhookEndpointConcurrency) };
      const worker = keep(
        await startApi(workerEnv, 'worker', settings.profileWorker ? { profileDir: workerProfiles } : {}),
      );
      for (let waited = 0; waited < 120_000; waited += 500) {
        const pending = Number(
          (await services.db.query('SELECT count(*) FROM outbox_events WHERE dispatched_at IS NULL')).rows[0].count,
        );
        if (pending === 0) break;
        await sleep(500);
      }
      if (settings.profileWorker) await tell(worker, 'profile:start');
      const source = { url: api.url, token: owner.token, storeId: owner.storeId, productIds };
      const pipeline = (from: 'sql' | 'api', durationSec: number) =>
        measureWebhooks(source, services.db, { source: from, rate: settings.webhookRate, durationSec, drainSec: 30 });
      results.webhooks = {
        sql: await pipeline('sql', settings.webhookSec),
        api: await pipeline('api', settings.webhookApiSec),
      };
      if (settings.kneeRates.length > 0) {
        log(`webhook knee: ${settings.kneeRates.join(', ')} changes/s in SQL, ${settings.kneeSec} s each`);
        results.webhooks.knee = await measureKnee(source, services.db, {
          rates: settings.kneeRates,
          stepSec: settings.kneeSec,
          drainSec: 15,
        });
      }
      if (settings.profileWorker)
        results.profile.worker = summariseProfile((await tell(worker, 'profile:stop')).written);
      await worker.stop();
    }

    if (selected('fairness')) {
      log(
        `fair delivery: one receiver hangs with ${settings.fairnessBacklog} events ` +
          `queued, another store at ${settings.fairnessRate}/s for ${settings.fairnessSec} s`,
      );
      // The timeout and the per-webhook settings are the defaults; the retry schedule and the cool-down
      // are shortened so that the recovered receiver's backlog drains within the run.
      const worker = keep(
        await startApi(
          { ...env, WEBHOOK_RETRY_DELAYS_MS: '0,5000,10000,30000,60000', WEBHOOK_CIRCUIT_COOLDOWN_MS: '5000' },
          'worker',
          {
            name: 'app-worker-fairness',
          },
        ),
      );
      const stores = { a: await merchant(api.url, 'fair-a'), b: await merchant(api.url, 'fair-b') };
      results.fairness = await measureFairness(api.url, services.db, stores, {
        backlog: settings.fairnessBacklog,
        rate: settings.fairnessRate,
        durationSec: settings.fairnessSec,
        drainSec: 180,
      });
      await worker.stop();
    }

    if (selected('credits')) {
      log('AI credits: parallel calls and the books');
      results.credits = await measureCredits(api.url, services.db, owner, small, {
        ...apiSettings,
        durationSec: Math.min(settings.durationSec, 10),
        contention: 60,
      });
    }
    if (selected('growth')) {
      log(`growth: one store grown to ${settings.growthSizes.join(', ')} orders, measured at each size`);
      const grower = await merchant(api.url, 'growth');
      results.growth = await measureGrowth(
        api.url,
        env,
        services.db,
        grower,
        { sizes: settings.growthSizes, requests: settings.growthRequests, warmup: 20 },
        log,
      );
    }
    await api.stop();

    console.log(report(results));
    const output = {
      ran_at: new Date(started).toISOString(),
      duration_s: Math.round((Date.now() - started) / 1000),
      machine: await machine(services.db, services.redisUrl),
      settings,
      results,
      ratios:
        results.api && results.baseline
          ? {
              read: results.api.read.rps / results.baseline.read.rps,
              write: results.api.write.rps / results.baseline.write.rps,
              // The API against the peer on the read: req/s, and CPU per request (above 1: the API costs more).
              read_vs_peer: results.peer ? results.api.read.rps / results.peer.read.rps : undefined,
              read_cpu_vs_peer:
                results.peer?.read.cpuMsPerRequest && results.api.read.cpuMsPerRequest
                  ? results.api.read.cpuMsPerRequest / results.peer.read.cpuMsPerRequest
                  : undefined,
            }
          : undefined,
      rounds: rounds.map((round) => ({
        read: {
          api_rps: round.api.read.rps,
          baseline_rps: round.baseline.read.rps,
          ratio: round.api.read.rps / round.baseline.read.rps,
          ...cpuOfRound(round.api.read, round.baseline.read),
          peer_rps: round.peer.rps,
          ratio_vs_peer: round.api.read.rps / round.peer.rps,
        },
        write: {
          api_rps: round.api.write.rps,
          baseline_rps: round.baseline.write.rps,
          ratio: round.api.write.rps / round.baseline.write.rps,
          ...cpuOfRound(round.api.write, round.baseline.write),
        },
      })),
    };
    fs.mkdirSync(RESULTS_DIR, { recursive: true });
    fs.writeFileSync(path.join(RESULTS_DIR, 'latest.json'), `${JSON.stringify(output, null, 2)}\n`);
    log(`done in ${output.duration_s} s; bench/results/latest.json written`);
    for (const failure of failedLoads) log(`FAILED REQUESTS: ${failure}`);
    const { webhooks, credits } = results;
    if (
      (webhooks && (webhooks.sql.lost > 0 || webhooks.api.lost > 0)) ||
      (results.fairness && (results.fairness.flowing.lost > 0 || results.fairness.hanging.lost > 0)) ||
      (credits && (!credits.ledger.consistent || !credits.overdraft.consistent)) ||
      (results.growth && !results.growth.consistent) ||
      failedLoads.length > 0
    )
      process.exitCode = 1;
  } catch (error) {
    for (const child of children)
      console.error(`--- last output of ${child.name} (${child.logFile}) ---\n${child.output()}`);
    throw error;
  } finally {
    await Promise.all(children.map((child) => child.stop().catch(() => undefined)));
    await services.cleanUp();
  }
}

await main();
