import type { Logger } from '@nestjs/common';
import { PeriodicTask } from './periodic-task.js';

const logger = () => ({ log: vi.fn(), warn: vi.fn() });

describe('PeriodicTask', () => {
  it('never runs twice at once: a run asked for while one is under way is skipped', async () => {
    let release!: () => void;
    const task = vi.fn(() => new Promise<void>((resolve) => (release = resolve)));
    const periodic = new PeriodicTask('sweep', task, logger() as unknown as Logger);
    const first = periodic.runOnce();
    await periodic.runOnce();
    expect(task).toHaveBeenCalledTimes(1);
    release();
    await first;
    const second = periodic.runOnce();
    release();
    await second;
    expect(task).toHaveBeenCalledTimes(2);
  });

  it('logs a streak of failures once, never throws, and says when the task works again', async () => {
    const log = logger();
    let fail = true;
    const periodic = new PeriodicTask(
      'sweep',
      async () => {
        if (fail) throw new Error('database down');
      },
      log as unknown as Logger,
    );
    await periodic.runOnce();
    await periodic.runOnce();
    await periodic.runOnce();
    expect(log.warn).toHaveBeenCalledTimes(1);
    expect(log.warn).toHaveBeenCalledWith({ err: { message: 'database down' } }, 'sweep failed; retrying on each tick');
    fail = false;
    await periodic.runOnce();
    await periodic.runOnce();
    expect(log.log).toHaveBeenCalledTimes(1);
    expect(log.log).toHaveBeenCalledWith('sweep works again');
  });

  it('logs what a run did, in one line with the counts, and nothing for a run that found nothing', async () => {
    const log = logger();
    let counts = { requeued: 0, interrupted: 0 };
    const periodic = new PeriodicTask('post sweep', async () => counts, log as unknown as Logger);
    await periodic.runOnce();
    expect(log.log).not.toHaveBeenCalled();
    counts = { requeued: 2, interrupted: 0 };
    await periodic.runOnce();
    expect(log.log).toHaveBeenCalledTimes(1);
    expect(log.log).toHaveBeenCalledWith(
      { task: 'post sweep', requeued: 2, interrupted: 0 },
      'post sweep: requeued 2, interrupted 0',
    );
  });

  it('runs on its interval once started, and not after stop', async () => {
    vi.useFakeTimers();
    try {
      const task = vi.fn(async () => undefined);
      const periodic = new PeriodicTask('sweep', task, logger() as unknown as Logger);
      periodic.start(1000);
      periodic.start(1000);
      await vi.advanceTimersByTimeAsync(3000);
      expect(task).toHaveBeenCalledTimes(3);
      await periodic.stop();
      await vi.advanceTimersByTimeAsync(3000);
      expect(task).toHaveBeenCalledTimes(3);
    } finally {
      vi.useRealTimers();
    }
  });

  it('stop waits for the run under way', async () => {
    let release!: () => void;
    const periodic = new PeriodicTask(
      'sweep',
      () => new Promise<void>((resolve) => (release = resolve)),
      logger() as unknown as Logger,
    );
    const run = periodic.runOnce();
    let stopped = false;
    const stopping = periodic.stop().then(() => (stopped = true));
    await new Promise((resolve) => setImmediate(resolve));
    expect(stopped).toBe(false);
    release();
    await stopping;
    await run;
    expect(stopped).toBe(true);
  });
});
