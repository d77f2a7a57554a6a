import { defineConfig } from 'vitest/config';

// The fault tests (`npm run test:faults`): the built app as child processes that the tests kill and
// restart, one file at a time (they share the machine's two cores with the processes they start).
export default defineConfig({
  test: {
    globals: true,
    environment: 'node',
    include: ['test/faults/**/*.fault-spec.ts'],
    fileParallelism: false,
    testTimeout: 180_000,
    hookTimeout: 120_000,
  },
});
