import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { ESLint } from 'eslint';
import * as core from '@app/core';

const ROOT = fileURLToPath(new URL('../../../../', import.meta.url));
const TENANCY = 'libs/core/src/tenancy/';

/** Every TypeScript file under `dir` (specs included: a spec reaching the connection is a way round too). */
function sources(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return sources(full);
    return entry.name.endsWith('.ts') ? [full] : [];
  });
}

const relative = (file: string) => path.relative(ROOT, file).split(path.sep).join('/');

/** The files of libs/ and apps/ outside the tenancy module whose text matches `pattern`. */
function outsideTenancy(pattern: RegExp): string[] {
  return sources(path.join(ROOT, 'libs'))
    .concat(sources(path.join(ROOT, 'apps')))
    .map(relative)
    .filter((file) => !file.startsWith(TENANCY))
    .filter((file) => pattern.test(fs.readFileSync(path.join(ROOT, file), 'utf8')))
    .sort();
}

describe('the service connection stays inside the tenancy module', () => {
  it('is not exported by @app/core', () => {
    for (const name of [
      'Connections',
      'ConnectionsModule',
      'SERVICE_CONNECTION',
      'serviceDataSource',
      'ScopedTypeOrmAdapter',
    ]) {
      expect(Object.keys(core)).not.toContain(name);
    }
  });

  it(
    'no file of libs/ or apps/ outside libs/core/src/tenancy ' +
      'imports the connections or names the service DataSource',
    () => {
      expect(outsideTenancy(/tenancy\/(connections|connections\.module|scoped-transaction-adapter)\.js['"]/)).toEqual(
        [],
      );
      // The class by name: imported (`{ Connections }`), injected or typed (`: Connections`).
      expect(
        outsideTenancy(
          /\b(SERVICE_CONNECTION|serviceDataSource|ConnectionsModule)\b|[{,]\s*Connections\b|:\s*Connections\b/,
        ),
      ).toEqual([]);
      expect(
        outsideTenancy(/\b(InjectDataSource|InjectEntityManager|getDataSourceToken|getEntityManagerToken)\(/),
      ).toEqual([]);
    },
  );

  it('lint refuses importing the connections anywhere outside the module, workers included', async () => {
    const eslint = new ESLint({ cwd: ROOT });
    const refused = async (file: string, code: string) =>
      (await eslint.lintText(code, { filePath: path.join(ROOT, file) }))[0].messages.filter(
        (message) => message.ruleId === 'no-restricted-imports',
      ).length;
    const planted = [
      "import { Connections } from '../tenancy/connections.js';\nexport const x = Connections;\n",
      "import { ConnectionsModule } from '../tenancy/connections.module.js';\nexport const x = ConnectionsModule;\n",
      "import { SERVICE_CONNECTION } from '@app/core';\nexport const x = SERVICE_CONNECTION;\n",
      "import { getDataSourceToken } from '@nestjs/typeorm';\nexport const x = getDataSourceToken('service');\n",
    ];
    // A request-path file of core, and a worker listed in SYSTEM_DB_USERS (which may use SystemDb, not the
    // connections).
    for (const file of ['libs/core/src/outbox/new.ts', 'libs/webhooks/src/deliveries/delivery.worker.ts']) {
      for (const code of planted) expect(await refused(file, code), `${file}: ${code}`).toBe(1);
    }
    expect(await refused('libs/core/src/tenancy/new.ts', planted[0])).toBe(0);
  });
});
