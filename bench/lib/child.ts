import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import fs from 'node:fs';
import { createServer } from 'node:net';
import path from 'node:path';

/** A process the bench started; its output goes to a log file (read back when something goes wrong). */
export interface Child {
  name: string;
  url: string;
  process: ChildProcess;
  logFile: string;
  /** The last lines of the process's output, each cut to 300 characters. */
  output(lines?: number): string;
  /** SIGTERM, then SIGKILL after `graceMs`; resolves once the process is gone. */
  stop(graceMs?: number): Promise<void>;
}

/** A TCP port that was free a moment ago on 127.0.0.1. */
export async function freePort(): Promise<number> {
  const server = createServer();
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as { port: number };
  server.close();
  await once(server, 'close');
  return port;
}

/**
 * Starts `node <script>` with the given environment (added to the bench's own) and waits until it is
 * ready: `readyPath` on its port answers 2xx or, for a process without HTTP, a line of its output
 * matches `readyLine`. Output goes to `<logDir>/<name>.log`, not through a pipe, so that logging costs
 * the measured process what it would cost in production and the bench nothing.
 */
export async function startChild(options: {
  name: string;
  script: string;
  env: Record<string, string>;
  logDir: string;
  port?: number;
  readyPath?: string;
  readyLine?: RegExp;
  nodeArgs?: string[];
  /** Open an IPC channel (`process.send` in the child). */
  ipc?: boolean;
  timeoutMs?: number;
}): Promise<Child> {
  fs.mkdirSync(options.logDir, { recursive: true });
  const logFile = path.join(options.logDir, `${options.name}.log`);
  const fd = fs.openSync(logFile, 'w');
  const child = spawn(process.execPath, [...(options.nodeArgs ?? []), options.script], {
    env: { ...process.env, ...options.env },
    stdio: options.ipc ? ['ignore', fd, fd, 'ipc'] : ['ignore', fd, fd],
  });
  fs.closeSync(fd);
  const exited = once(child, 'exit');
  const url = options.port ? `http://127.0.0.1:${options.port}` : '';
  const output = (lines = 15) =>
    fs
      .readFileSync(logFile, 'utf8')
      .split('\n')
      .slice(-lines)
      .map((line) => (line.length > 300 ? `${line.slice(0, 300)}…` : line))
      .join('\n');
  const timeoutMs = options.timeoutMs ?? 60_000;
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (child.exitCode !== null || child.signalCode !== null) {
      throw new Error(`${options.name} exited during start-up (${child.exitCode ?? child.signalCode}):\n${output()}`);
    }
    const ready = options.readyLine
      ? options.readyLine.test(fs.readFileSync(logFile, 'utf8'))
      : await fetch(`${url}${options.readyPath ?? '/'}`)
          .then((response) => response.ok)
          .catch(() => false);
    if (ready) break;
    if (Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`${options.name} was not ready within ${timeoutMs} ms:\n${output()}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  return {
    name: options.name,
    url,
    process: child,
    logFile,
    output,
    async stop(graceMs = 10_000) {
      if (child.exitCode !== null || child.signalCode !== null) return;
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
      await exited;
      clearTimeout(timer);
    },
  };
}
