import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { ESLint } from 'eslint';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));

/**
 * The client and the flows that drive it read answers as the document types them: nothing may override the types
 * (docs/sdk.md).
 */
describe('lint of the generated client and its flows', () => {
  const eslint = new ESLint({ cwd: ROOT });
  const rules = async (file: string, code: string) =>
    (await eslint.lintText(code, { filePath: path.join(ROOT, file) }))[0].messages
      .map((message) => message.ruleId)
      .sort();

  it.each(['test/sdk/new-flow.ts', 'sdk/extra.ts'])(
    '%s: a type assertion, `any` and a non-null assertion are errors',
    async (file) => {
      const code = [
        "const body: unknown = JSON.parse('{}');",
        'export const a = body as { id: string };',
        'export const b = <{ id: string }>body;',
        'export const c: any = body;',
        'export const d = [1].find((n) => n > 0)!;',
        '',
      ].join('\n');
      expect(await rules(file, code)).toEqual([
        '@typescript-eslint/consistent-type-assertions',
        '@typescript-eslint/consistent-type-assertions',
        '@typescript-eslint/no-explicit-any',
        '@typescript-eslint/no-non-null-assertion',
      ]);
    },
  );

  it('elsewhere in the tests the same code passes (the rules are the client’s, not the project’s)', async () => {
    const code =
      "const body: unknown = JSON.parse('{}');\nexport const a = body " +
      'as { id: string };\nexport const d = [1].find((n) => n > 0)!;\n';
    expect(await rules('test/other.e2e-spec.ts', code)).toEqual([]);
  });
});
