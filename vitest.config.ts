import { fileURLToPath } from 'node:url';
import swc from 'unplugin-swc';
import { defineConfig } from 'vitest/config';

const lib = (name: string) => fileURLToPath(new URL(`./libs/${name}/src/index.ts`, import.meta.url));

// Tests run in Vitest: it loads node_modules through Node itself, so the CommonJS packages that
// require NestJS 12's ES modules (nestjs-cls, @nestjs/throttler) work as they do in production.
// SWC compiles the TypeScript with decorator metadata, which Nest's injection needs.
export default defineConfig({
  plugins: [
    swc.vite({
      jsc: {
        parser: { syntax: 'typescript', decorators: true },
        transform: { legacyDecorator: true, decoratorMetadata: true, useDefineForClassFields: false },
        target: 'es2022',
        keepClassNames: true,
      },
    }),
  ],
  resolve: {
    // The @app/<lib> aliases of tsconfig.json.
    alias: Object.fromEntries(
      ['core', 'auth', 'commerce', 'ai', 'social', 'webhooks', 'billing', 'mail', 'notifications'].map((name) => [
        `@app/${name}`,
        lib(name),
      ]),
    ),
  },
  test: {
    globals: true,
    setupFiles: ['reflect-metadata'],
    environment: 'node',
    testTimeout: 60_000,
    hookTimeout: 60_000,
    pool: 'forks',
    poolOptions: { forks: { maxForks: 2, minForks: 1 } },
    projects: [
      { extends: true, test: { name: 'unit', include: ['libs/**/*.spec.ts', 'apps/**/*.spec.ts'] } },
      // Type-level tests (`*.test-d.ts`: expectTypeOf, @ts-expect-error), checked by tsc with tsconfig.json, not run.
      {
        extends: true,
        test: {
          name: 'types',
          include: [],
          typecheck: { enabled: true, only: true, include: ['libs/**/*.test-d.ts'], tsconfig: 'tsconfig.json' },
        },
      },
      // e2e files run one at a time: they share one database and Redis, and the outbox relays and
      // delivery workers some of them start must not pick up another file's events or jobs.
      {
        extends: true,
        test: {
          name: 'e2e',
          include: ['test/**/*.e2e-spec.ts'],
          globalSetup: ['test/support/global-setup.ts'],
          fileParallelism: false,
        },
      },
    ],
  },
});
