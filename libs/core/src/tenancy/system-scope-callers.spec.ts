import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { ESLint } from 'eslint';

const ROOT = fileURLToPath(new URL('../../../../', import.meta.url));

function sources(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return sources(full);
    return entry.name.endsWith('.ts') && !entry.name.endsWith('.spec.ts') ? [full] : [];
  });
}

describe('the system scope and the database handles', () => {
  it('is entered only through SystemDb.run: no other file calls DbScopes.asSystem', () => {
    const callers = sources(path.join(ROOT, 'libs'))
      .concat(sources(path.join(ROOT, 'apps')))
      .filter((file) => !file.endsWith(path.join('tenancy', 'current-scope.ts')))
      .filter((file) => /\.asSystem\(/.test(fs.readFileSync(file, 'utf8')))
      .map((file) => path.relative(ROOT, file).split(path.sep).join('/'))
      .sort();
    expect(callers).toEqual(['libs/core/src/tenancy/db-handles.ts']);
  });

  it(
    'lint refuses the raw database handles in request ' + 'code, and SystemDb outside the files listed for it',
    async () => {
      const eslint = new ESLint({ cwd: ROOT });
      const problems = async (file: string, code: string) =>
        (await eslint.lintText(code, { filePath: path.join(ROOT, file) }))[0].messages
          .filter((message) => message.ruleId === 'no-restricted-imports')
          .map((message) => message.message.split(' ')[0]);
      const handler = 'libs/commerce/src/stores/queries/get-store/new.handler.ts';
      expect(await problems(handler, "import { SystemDb } from '@app/core';\nexport const x = SystemDb;\n")).toEqual([
        "'SystemDb'",
      ]);
      expect(
        await problems(
          handler,
          "import { TransactionHost } from '@nestjs-cls/transactional';\nexport const x = TransactionHost;\n",
        ),
      ).toEqual(["'TransactionHost'"]);
      expect(
        await problems(
          handler,
          "import { InjectDataSource } from '@nestjs/typeorm';\nexport const x = InjectDataSource;\n",
        ),
      ).toEqual(["'InjectDataSource'"]);
      expect(
        await problems(
          'libs/core/src/outbox/new.ts',
          "import { SystemDb } from '../tenancy/db-handles.js';\nexport const x = SystemDb;\n",
        ),
      ).toHaveLength(1);
      expect(
        await problems(
          handler,
          "import { TenantDb, ScopedDb } from '@app/core';\nexport const x = [TenantDb, ScopedDb];\n",
        ),
      ).toEqual([]);
      // A worker listed in eslint.config.js may; it still may not take the raw handles.
      const worker = 'libs/webhooks/src/deliveries/delivery.worker.ts';
      expect(await problems(worker, "import { SystemDb } from '@app/core';\nexport const x = SystemDb;\n")).toEqual([]);
      expect(
        await problems(
          worker,
          "import { TransactionHost } from '@nestjs-cls/transactional';\nexport const x = TransactionHost;\n",
        ),
      ).toHaveLength(1);
    },
  );
});
