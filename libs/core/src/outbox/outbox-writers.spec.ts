import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../../../../', import.meta.url));

/** The TypeScript sources under `dir`, tests and migrations left out. */
function sources(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return entry.name === 'migrations' ? [] : sources(full);
    return entry.name.endsWith('.ts') && !entry.name.endsWith('.spec.ts') ? [full] : [];
  });
}

describe('the outbox', () => {
  it('is written by OutboxService alone: no other source inserts into outbox_events', () => {
    const writers = [...sources(path.join(ROOT, 'libs')), ...sources(path.join(ROOT, 'apps'))]
      .filter((file) => /INSERT\s+INTO\s+outbox_events\b/i.test(fs.readFileSync(file, 'utf8')))
      .map((file) => path.relative(ROOT, file).split(path.sep).join('/'));
    expect(writers).toEqual(['libs/core/src/outbox/outbox.service.ts']);
  });
});
