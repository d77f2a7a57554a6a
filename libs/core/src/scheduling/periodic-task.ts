import type { Logger } from '@nestjs/common';

/** What one run of a task did, by name (`{ relayed: 3 }`): logged when any count is above zero. */
export type TaskCounts = Readonly<Record<string, number>>;

/**
 * A task this process runs every so often (the worker's sweeps and purges): never two runs at once,
 * a failure logged once per streak of failures and tried again on the next tick, and a timer that
 * never keeps the process alive. A run that did something says what in one log line
 * (`{task, ...counts}`), so that with several workers each sweep's claims can be told apart and added up.
 */
export class PeriodicTask {
  private timer?: NodeJS.Timeout;
  private current?: Promise<void>;
  private failing = false;

  constructor(
    private readonly name: string,
    private readonly task: () => Promise<TaskCounts | void>,
    private readonly logger: Logger,
  ) {}

  start(everyMs: number): void {
    if (this.timer) return;
    this.timer = setInterval(() => void this.runOnce(), everyMs);
    this.timer.unref();
  }

  /** No more ticks; resolves once a run under way has ended (so a shutdown can close the connections after it). */
  async stop(): Promise<void> {
    clearInterval(this.timer);
    this.timer = undefined;
    await this.current;
  }

  /** One run now, unless one is under way; never throws. */
  async runOnce(): Promise<void> {
    if (this.current) return;
    this.current = this.run();
    try {
      await this.current;
    } finally {
      this.current = undefined;
    }
  }

  private async run(): Promise<void> {
    try {
      const counts = await this.task();
      if (this.failing) this.logger.log(`${this.name} works again`);
      this.failing = false;
      if (counts && Object.values(counts).some((count) => count > 0)) {
        const summary = Object.entries(counts)
          .map(([what, count]) => `${what} ${count}`)
          .join(', ');
        this.logger.log({ task: this.name, ...counts }, `${this.name}: ${summary}`);
      }
    } catch (error) {
      if (!this.failing)
        this.logger.warn({ err: { message: (error as Error).message } }, `${this.name} failed; retrying on each tick`);
      this.failing = true;
    }
  }
}
