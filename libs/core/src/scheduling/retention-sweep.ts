import { Logger, type BeforeApplicationShutdown, type OnApplicationBootstrap } from '@nestjs/common';
import type { RuntimeConfig } from '../config/runtime.config.js';
import type { SystemDb } from '../tenancy/db-handles.js';
import { queryRows } from '../database/raw-sql.js';
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
export abstract class RetentionSweep implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly task: PeriodicTask;

  /**
   * `sweep.deleteBatch` deletes at most `$2` rows older than `$1` days, `RETURNING 1`; `sweep.days`
   * reads the retention setting in days (0 keeps every row).
   */
  protected constructor(
    private readonly sweep: {
      name: string;
      days: () => number;
      deleteBatch: string;
    },
    private readonly system: SystemDb,
    private readonly runtime: RuntimeConfig,
  ) {
    // A run that deleted something says how much, and in how many statements, in one log line.
    const run = async () => {
      const batches = await this.prune();
      return { deleted: batches.reduce((sum, count) => sum + count, 0), batches: batches.length };
    };
    this.task = new PeriodicTask(sweep.name, run, new Logger(sweep.name));
  }

  private retentionDays(): number {
    return this.sweep.days();
  }

  onApplicationBootstrap(): void {
    if (this.runtime.APP_ROLE === 'api' || this.retentionDays() === 0) return;
    this.task.start(RETENTION_INTERVAL_MS);
    // Also now: a worker restarted more often than the interval must still sweep.
    void this.task.runOnce();
  }

  /** Before the connections close: a run under way finishes its batch. */
  async beforeApplicationShutdown(): Promise<void> {
    await this.task.stop();
  }

  /**
   * One sweep: batches until one deletes nothing (a row may become deletable only once another batch
   * has removed what refers to it). Returns each batch's count; none when the retention is 0.
   */
  prune(batch = RETENTION_BATCH): Promise<number[]> {
    const days = this.retentionDays();
    if (days === 0) return Promise.resolve([]);
    return this.system.run(async () => {
      const counts: number[] = [];
      for (;;) {
        const deleted = (await queryRows(this.system.tx, this.sweep.deleteBatch, [days, batch])).length;
        if (deleted === 0) return counts;
        counts.push(deleted);
      }
    });
  }
}
