/**
 * Runs the API under the V8 CPU profiler, switched by IPC messages from the bench: `profile:start`,
 * then `profile:stop`, which writes BENCH_PROFILE_DIR/profile-<n>.cpuprofile (open it in Chrome
 * DevTools, or summarise it with bench/lib/profile.ts) and answers `{ written: <file> }`. Not a
 * signal: the API's shutdown hooks take SIGUSR2. The bench profiles a separate pass, not a measured one.
 *
 * Env: BENCH_APP_MAIN (the file URL of the built main.js), BENCH_PROFILE_DIR.
 */
import fs from 'node:fs';
import { Session } from 'node:inspector/promises';
import path from 'node:path';

const session = new Session();
session.connect();
await session.post('Profiler.enable');
await session.post('Profiler.setSamplingInterval', { interval: 500 });
let profiling = false;
let written = 0;

process.on('message', (message) => {
  void (async () => {
    if (message === 'profile:start' && !profiling) {
      profiling = true;
      await session.post('Profiler.start');
      process.send!({ started: true });
    } else if (message === 'profile:stop' && profiling) {
      profiling = false;
      const { profile } = await session.post('Profiler.stop');
      const file = path.join(process.env.BENCH_PROFILE_DIR!, `profile-${++written}.cpuprofile`);
      fs.writeFileSync(file, JSON.stringify(profile));
      process.send!({ written: file });
    }
  })();
});

await import(process.env.BENCH_APP_MAIN!);
