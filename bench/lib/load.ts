import fs from 'node:fs';
import autocannon from 'autocannon';

/** What one load run measured. Latencies in milliseconds; `rps` is the mean of the per-second counts. */
export interface LoadResult {
  rps: number;
  p50: number;
  p99: number;
  requests: number;
  /** Connection errors, timeouts and non-2xx answers. */
  errors: number;
  status: { '2xx': number; '4xx': number; '5xx': number };
  /**
   * CPU time the server process spent per request during the measured run (user + system, ms), when
   * its pid was given: unlike req/s, barely moved by whatever else the machine runs.
   */
  cpuMsPerRequest?: number;
}

export interface LoadOptions {
  url: string;
  method: 'GET' | 'POST' | 'PATCH';
  headers?: Record<string, string>;
  /** A fresh body for every request (JSON text). */
  body?: () => string;
  connections: number;
  durationSec: number;
  warmupSec: number;
  /** The server's process id, for its CPU time per request. */
  serverPid?: number;
}

/** A process's CPU time so far (user + system, seconds), from /proc; undefined where there is none. */
export function processCpuSeconds(pid: number): number | undefined {
  try {
    // Fields after the command name (which may hold spaces, hence the last ')'): utime and stime are the 12th and 13th.
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) / CLOCK_TICKS_PER_SECOND;
  } catch {
    return undefined;
  }
}

/** Linux's USER_HZ: /proc reports CPU time in these ticks. */
const CLOCK_TICKS_PER_SECOND = 100;

function run(options: LoadOptions, durationSec: number): Promise<autocannon.Result> {
  const headers = { ...options.headers, ...(options.body ? { 'content-type': 'application/json' } : {}) };
  const body = options.body;
  return autocannon({
    url: options.url,
    method: options.method,
    headers,
    connections: options.connections,
    duration: durationSec,
    requests: [
      {
        method: options.method,
        setupRequest: (request) => (body ? { ...request, body: body() } : request),
      },
    ],
  });
}

/** A warm-up run (discarded: JIT, pools and caches fill), then the measured run. */
export async function load(options: LoadOptions): Promise<LoadResult> {
  if (options.warmupSec > 0) await run(options, options.warmupSec);
  const cpuBefore = options.serverPid ? processCpuSeconds(options.serverPid) : undefined;
  const result = await run(options, options.durationSec);
  const cpuAfter = options.serverPid ? processCpuSeconds(options.serverPid) : undefined;
  return {
    cpuMsPerRequest:
      cpuBefore !== undefined && cpuAfter !== undefined && result.requests.total > 0
        ? (1000 * (cpuAfter - cpuBefore)) / result.requests.total
        : undefined,
    rps: result.requests.average,
    p50: result.latency.p50,
    p99: result.latency.p99,
    requests: result.requests.total,
    errors: result.errors + result.non2xx,
    status: { '2xx': result['2xx'], '4xx': result['4xx'], '5xx': result['5xx'] },
  };
}

/**
 * A closed-loop load whose every answer is counted: `concurrency` lanes send `send()` back to back
 * for `durationSec`, and the requests still out at the end are awaited and counted too (autocannon
 * drops them, which would leave its counts short of what the server did).
 */
export async function countedLoad(
  send: () => Promise<number>,
  concurrency: number,
  durationSec: number,
): Promise<LoadResult> {
  const latencies: number[] = [];
  const statuses: number[] = [];
  const started = performance.now();
  const until = started + durationSec * 1000;
  const lane = async () => {
    while (performance.now() < until) {
      const at = performance.now();
      statuses.push(await send().catch(() => 0));
      latencies.push(performance.now() - at);
    }
  };
  await Promise.all(Array.from({ length: concurrency }, lane));
  const elapsed = (performance.now() - started) / 1000;
  latencies.sort((a, b) => a - b);
  const at = (q: number) => latencies[Math.min(latencies.length - 1, Math.ceil(q * latencies.length) - 1)] ?? NaN;
  const count = (low: number) => statuses.filter((status) => status >= low && status < low + 100).length;
  return {
    rps: statuses.length / elapsed,
    p50: at(0.5),
    p99: at(0.99),
    requests: statuses.length,
    errors: statuses.length - count(200),
    status: { '2xx': count(200), '4xx': count(400), '5xx': count(500) },
  };
}
