import js from '@eslint/js';
import prettier from 'eslint-config-prettier';
import tseslint from 'typescript-eslint';

/**
 * Which database a query runs on is chosen by type at the call site: `TenantDb` (the request role,
 * row-level security, bound to the caller), `SystemDb` (the service role: workers, sweeps, the boot)
 * or `ScopedDb` (steps both run). The raw handles stay inside the tenancy module (libs/core/src/tenancy).
 */
const DATABASE_HANDLES = [
  {
    name: '@nestjs-cls/transactional',
    importNames: ['TransactionHost'],
    message: 'Query through TenantDb, SystemDb or ScopedDb (@app/core), so the scope is visible at the call.',
  },
  {
    name: '@nestjs/typeorm',
    importNames: ['InjectDataSource', 'InjectEntityManager', 'getDataSourceToken', 'getEntityManagerToken'],
    message:
      'The connections are the tenancy module’s (libs/core/src/tenancy): query through TenantDb, SystemDb or ScopedDb.',
  },
  {
    name: '@app/core',
    importNames: ['SERVICE_CONNECTION', 'Connections', 'ConnectionsModule', 'serviceDataSource'],
    message: 'The connections stay inside libs/core/src/tenancy: query through TenantDb, SystemDb or ScopedDb.',
  },
  // Not a database handle, but refused in the same files: the app has no global pipe, so a body or query read
  // with Nest's own decorator would reach its handler unvalidated.
  {
    name: '@nestjs/common',
    importNames: ['Body', 'Query'],
    message: 'Body and Query come from @app/core: they carry the validation pipe (libs/core/src/validation).',
  },
];
/**
 * The tenancy module's private files: the connections (the service login's among them) and the adapter that picks one.
 */
/** Nest's `Body` and `Query` by a deeper path of the package (`@nestjs/common/index.js`): refused as by its name. */
const NEST_PARAMS_PATTERN = {
  group: ['@nestjs/common/*'],
  importNames: ['Body', 'Query'],
  message: 'Body and Query come from @app/core: they carry the validation pipe (libs/core/src/validation).',
};
const CONNECTIONS_PATTERN = {
  group: ['**/tenancy/connections.js', '**/tenancy/connections.module.js', '**/tenancy/scoped-transaction-adapter.js'],
  message: 'The connections stay inside libs/core/src/tenancy: query through TenantDb, SystemDb or ScopedDb.',
};
const SYSTEM_DB = {
  name: '@app/core',
  importNames: ['SystemDb'],
  message:
    'SystemDb runs as the service login, for workers, sweeps and the boot ' +
    'only: list the file in eslint.config.js (SYSTEM_DB_USERS) if it is one.',
};
const SYSTEM_DB_PATTERN = {
  group: ['**/tenancy/db-handles.js'],
  importNames: ['SystemDb'],
  message: SYSTEM_DB.message,
};
/**
 * The files that may query as the system (beside libs/core/src/tenancy), each a worker, a sweep, the boot or a
 * repository's worker-only methods.
 */
const SYSTEM_DB_USERS = [
  'libs/auth/src/sessions/session.repository.ts',
  'libs/auth/src/users/admin-bootstrap.service.ts',
  'libs/auth/src/users/user.repository.ts',
  'libs/billing/src/credits.service.ts',
  'libs/core/src/core.module.ts',
  'libs/core/src/idempotency/idempotency.store.ts',
  'libs/core/src/outbox/outbox-relay.ts',
  'libs/core/src/outbox/outbox-retention.ts',
  'libs/core/src/outbox/store-event-subscribers.ts',
  'libs/core/src/scheduling/retention-sweep.ts',
  'libs/mail/src/delivery/mail-relay.ts',
  'libs/mail/src/delivery/mail-retention.ts',
  'libs/notifications/src/notification.repository.ts',
  'libs/social/src/platforms/social-platform.rows.ts',
  'libs/social/src/publishing/scheduled-post.worker.ts',
  'libs/social/src/social.repository.ts',
  'libs/webhooks/src/deliveries/delivery-attempt.ts',
  'libs/webhooks/src/deliveries/delivery-retention.ts',
  'libs/webhooks/src/deliveries/delivery.repository.ts',
  'libs/webhooks/src/deliveries/delivery.worker.ts',
  'libs/webhooks/src/deliveries/lost-delivery-sweep.ts',
  'libs/webhooks/src/deliveries/lost-delivery.repository.ts',
  'libs/webhooks/src/webhooks/webhook.repository.ts',
];

export default tseslint.config(
  { ignores: ['dist/**', 'node_modules/**', 'coverage/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  prettier,
  {
    languageOptions: {
      globals: { process: 'readonly', console: 'readonly', Buffer: 'readonly', URL: 'readonly', fetch: 'readonly' },
    },
    rules: {
      '@typescript-eslint/no-explicit-any': 'off',
      '@typescript-eslint/no-unsafe-function-type': 'off',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/no-non-null-assertion': 'off',
    },
  },
  // Lines of at most 120 characters, comments, strings and SQL included: Prettier wraps code only. The generated
  // client (sdk/) keeps the generator's lines.
  {
    ignores: ['sdk/**'],
    rules: { 'max-len': ['error', { code: 120, tabWidth: 2 }] },
  },
  {
    files: ['libs/**/*.ts', 'apps/**/*.ts'],
    ignores: ['**/*.spec.ts', '**/*.test-d.ts', 'libs/core/src/tenancy/**', 'libs/core/src/index.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          paths: [...DATABASE_HANDLES, SYSTEM_DB],
          patterns: [SYSTEM_DB_PATTERN, CONNECTIONS_PATTERN, NEST_PARAMS_PATTERN],
        },
      ],
    },
  },
  {
    files: SYSTEM_DB_USERS,
    rules: {
      'no-restricted-imports': [
        'error',
        { paths: DATABASE_HANDLES, patterns: [CONNECTIONS_PATTERN, NEST_PARAMS_PATTERN] },
      ],
    },
  },
  // The generated client and the flows that drive it read every answer typed by the document: no
  // assertion, `any` or `!` may paper over a route whose schema is missing (docs/sdk.md).
  {
    files: ['sdk/**/*.ts', 'test/sdk/**/*.ts'],
    rules: {
      '@typescript-eslint/consistent-type-assertions': ['error', { assertionStyle: 'never' }],
      '@typescript-eslint/no-explicit-any': 'error',
      '@typescript-eslint/no-non-null-assertion': 'error',
    },
  },
);
