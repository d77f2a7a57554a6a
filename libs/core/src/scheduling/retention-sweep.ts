import { Logger, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import type { AppConfig } from '../config/app-config.js';
import type { DbScopes } from '../database/db-scope.js';
import { PeriodicTask } from './periodic-task.js';

/** How often worker processes delete what their retention settings no longer keep. */
export const RETENTION_INTERVAL_MS = 60 * 60 * 1000;
/** The most rows one statement deletes: each batch commits on its own, so locks and WAL stay small. */
export const RETENTION_BATCH = 1000;

/**
 * Deletes rows older than a retention setting, so a table stops growing with time: every worker
 * process (APP_ROLE worker or all) sweeps at start and then every RETENTION_INTERVAL_MS, as the
 * system, in batches of at most RETENTION_BATCH rows, each its own statement and transaction. A batch
 * takes its rows with FOR UPDATE SKIP LOCKED, so workers sweeping at the same moment delete disjoint
 * rows and never wait on one another. A retention of 0 days turns the sweep off.
 */
export abstract class RetentionSweep implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly task: PeriodicTask;

  protected constructor(
    name: string,
    protected readonly config: AppConfig,
    private readonly scopes: DbScopes,
  ) {
    this.task = new PeriodicTask(name, () => this.prune(), new Logger(name));
  }

  /** The retention setting, in days; 0 keeps every row. */
  protected abstract retentionDays(): number;

  /** Deletes at most `limit` rows older than `days` days; answers how many went. */
  protected abstract deleteBatch(days: number, limit: number): Promise<number>;

  onApplicationBootstrap(): void {
    if (this.config.APP_ROLE === 'api' || this.retentionDays() === 0) return;
    this.task.start(RETENTION_INTERVAL_MS);
    // Also now: a worker restarted more often than the interval must still sweep.
    void this.task.runOnce();
  }

  onApplicationShutdown(): void {
    this.task.stop();
  }

  /**
   * One sweep: batches until one deletes nothing (a row may become deletable only once another batch
   * has removed what refers to it). Answers each batch's count; none when the retention is 0.
   */
  prune(batch = RETENTION_BATCH): Promise<number[]> {
    const days = this.retentionDays();
    if (days === 0) return Promise.resolve([]);
    return this.scopes.asSystem(async () => {
      const counts: number[] = [];
      for (;;) {
        const deleted = await this.deleteBatch(days, batch);
        if (deleted === 0) return counts;
        counts.push(deleted);
      }
    });
  }
}
