import type { Logger } from '@nestjs/common';
import type { Job, JobOptions, Queue } from 'bull';

/**
 * How long a shutting-down worker waits for its running jobs: 80 % of SHUTDOWN_TIMEOUT_MS, and at
 * least a second less than it; the rest is for handing back what still runs and closing connections.
 */
export function jobDrainMs(shutdownTimeoutMs: number): number {
  return Math.round(Math.min(shutdownTimeoutMs * 0.8, shutdownTimeoutMs - 1000));
}

/**
 * Runs one Bull queue's jobs in this process, and stops so that no job is left behind: `stop` takes
 * no new job and waits for the running ones; those still running after its time are handed back to
 * the queue as waiting jobs under the same id, so another worker runs them at once instead of after
 * Bull's stalled-job check (a lock expiring 30 s later). The job handlers must be idempotent (they
 * are: a delivery attempt or a post claim already made is skipped), since a handed-back job may have
 * done part of its work.
 */
export class QueueWorker<T> {
  private readonly running = new Set<Job<T>>();
  private started = false;
  private stopping?: Promise<number>;

  constructor(
    private readonly queue: Queue<T>,
    private readonly logger: Logger,
  ) {}

  /** Whether `stop` was called: a job that could go on to more work should hand it back instead. */
  get stopped(): boolean {
    return this.stopping !== undefined;
  }

  start(concurrency: number, handle: (job: Job<T>) => Promise<void>): void {
    this.started = true;
    this.queue
      .process(concurrency, async (job: Job<T>) => {
        this.running.add(job);
        try {
          await handle(job);
        } finally {
          this.running.delete(job);
        }
      })
      // The promise settles when processing ends; it rejects when the queue is closed while its
      // connections are still being made (a stop right after the start). Never unhandled.
      .catch((error: Error) => {
        if (!this.stopping)
          this.logger.error({ err: { message: error.message } }, `queue ${this.queue.name} stopped processing`);
      });
  }

  /**
   * Takes no new job, waits up to `withinMs` for the running ones, and hands back those still running.
   * Returns how many were handed back. Called again, it returns the same stop: a worker can start
   * stopping in one shutdown hook (`onModuleDestroy`, so that every queue drains at the same time)
   * and wait for it in the next (`beforeApplicationShutdown`, before the connections close).
   */
  stop(withinMs: number): Promise<number> {
    this.stopping ??= this.started ? this.drain(withinMs) : Promise.resolve(0);
    return this.stopping;
  }

  private async drain(withinMs: number): Promise<number> {
    let timer: NodeJS.Timeout | undefined;
    const finished = await Promise.race([
      // Local pause: this process takes no new job; resolves once the running ones are done.
      this.queue.pause(true).then(
        () => true,
        () => true,
      ),
      new Promise<false>((resolve) => (timer = setTimeout(() => resolve(false), withinMs))),
    ]);
    clearTimeout(timer);
    if (finished) return 0;
    const unfinished = [...this.running];
    for (const job of unfinished) await this.handBack(job);
    // Close without waiting for the abandoned handlers (the queue's own close would wait for them).
    await this.queue.close(true).catch(() => undefined);
    return unfinished.length;
  }

  private async handBack(job: Job<T>): Promise<void> {
    try {
      // Gives up the lock; the queue's options remove a failed job, so its id is free again.
      await job.moveToFailed({ message: 'handed back: the worker is shutting down' }, true);
      // The same options (attempts, removal), due now; the new job's timestamp is its own.
      const options: JobOptions & { timestamp?: number } = { ...job.opts, jobId: String(job.id), delay: 0 };
      delete options.timestamp;
      await this.queue.add(job.data, options);
      this.logger.warn(
        { job_id: job.id, queue: this.queue.name },
        'job still running at shutdown; handed back to the queue',
      );
    } catch (error) {
      this.logger.error(
        { err: { message: (error as Error).message }, job_id: job.id, queue: this.queue.name },
        'could not hand a running job back; the sweeps will find its work',
      );
    }
  }
}
