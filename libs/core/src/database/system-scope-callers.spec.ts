import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../../../../', import.meta.url));

/** The only code that may run as the system (the service login): workers, sweeps and the boot (settings, the admin). */
const SYSTEM_CALLERS = [
  'libs/auth/src/users/admin-bootstrap.service.ts',
  'libs/billing/src/credits.service.ts',
  'libs/core/src/idempotency/idempotency.store.ts',
  // The acknowledging subscribers of store events (the webhook dispatch, merchant notifications), in the relaying worker.
  'libs/core/src/outbox/store-event-subscribers.ts',
  'libs/core/src/scheduling/retention-sweep.ts',
  'libs/mail/src/delivery/mail-relay.ts',
  'libs/social/src/platforms/social-platform.rows.ts',
  'libs/social/src/publishing/scheduled-post.worker.ts',
  'libs/webhooks/src/deliveries/delivery.worker.ts',
];

function sources(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return sources(full);
    return entry.name.endsWith('.ts') && !entry.name.endsWith('.spec.ts') ? [full] : [];
  });
}

describe('the system scope', () => {
  it('is entered only by the workers, the sweeps and the boot: no request path runs as the service login', () => {
    const callers = sources(path.join(ROOT, 'libs'))
      .concat(sources(path.join(ROOT, 'apps')))
      .filter((file) => !file.endsWith(path.join('database', 'db-scope.ts')))
      .filter((file) => /\.asSystem\(/.test(fs.readFileSync(file, 'utf8')))
      .map((file) => path.relative(ROOT, file).split(path.sep).join('/'))
      .sort();
    expect(callers).toEqual(SYSTEM_CALLERS);
  });

  it('the service connection is injected only where the relay claims outbox rows', () => {
    const injected = sources(path.join(ROOT, 'libs'))
      .filter((file) => /InjectDataSource\(SERVICE_CONNECTION\)/.test(fs.readFileSync(file, 'utf8')))
      .map((file) => path.relative(ROOT, file).split(path.sep).join('/'))
      .sort();
    expect(injected).toEqual(['libs/core/src/database/db-scope.ts', 'libs/core/src/outbox/outbox-relay.ts']);
  });
});
