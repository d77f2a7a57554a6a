import { fileURLToPath } from 'node:url';
import { format, resolveConfig } from 'prettier';
import { SOCIAL_PLATFORM_DEFINITIONS } from './registry.js';
import type { SettingSpec } from './platform-settings.js';

const DOC = fileURLToPath(new URL('../../../../docs/platforms.md', import.meta.url));

const cell = (text: string) => text.replace(/\|/g, '\\|');
const limitOf = (limit: number, weighted: boolean) =>
  `${limit.toLocaleString('en-US')} ` +
  (weighted ? 'weighted characters (a URL counts 23, emoji and CJK 2)' : 'characters');

/** docs/platforms.md, as the registry says it. */
function render(): string {
  const rows = SOCIAL_PLATFORM_DEFINITIONS.map(
    (p) =>
      `| ${p.displayName} | \`${p.id}\` | ${limitOf(p.textLimit, p.textCount === 'weighted')} ` +
      `| ${cell(p.media)} | ${p.usesPkce ? 'yes' : 'no'} |`,
  );
  const notes = SOCIAL_PLATFORM_DEFINITIONS.map((p) => `- **${p.displayName}**: ${p.notes}`);
  const settings = new Map<string, { spec: SettingSpec; platforms: string[] }>();
  for (const platform of SOCIAL_PLATFORM_DEFINITIONS) {
    for (const [name, spec] of Object.entries(platform.settings)) {
      const seen = settings.get(name) ?? { spec, platforms: [] };
      seen.platforms.push(platform.displayName);
      settings.set(name, seen);
    }
  }
  const settingRows = [...settings].map(
    ([name, { spec, platforms }]) =>
      `| \`${name}\` | ${spec.default === undefined ? 'unset' : `\`${spec.default}\``} ` +
      `| ${platforms.join(', ')} | ${cell(spec.description)} |`,
  );
  return [
    '# Social platforms',
    '',
    '<!-- Generated from the platform registry by ' +
      'libs/social/src/platforms/platforms-doc.spec.ts: do not edit by hand. -->',
    '',
    'The platforms this service connects stores to and publishes on. This page is generated from the platform registry',
    '(`libs/social/src/platforms/registry.ts` and each platform’s ' +
      'folder); the unit tests fail while it is stale. After changing',
    'a platform, write it again with `npx vitest run --project ' +
      'unit -u libs/social/src/platforms/platforms-doc.spec.ts`.',
    '',
    '| Platform | Id | Text limit | Media | PKCE |',
    '| --- | --- | --- | --- | --- |',
    ...rows,
    '',
    'Every platform’s rules are checked before anything is sent (400 with one `details` item per problem, naming its',
    '`platform`). A `link` counts against the text limit as it will be posted.',
    '',
    ...notes,
    '',
    '## Settings',
    '',
    'Each platform’s app credentials and API addresses, read ' +
      'from the environment at start (a bad value stops the start',
    'with one line naming it). With `SOCIAL_MODE=live` a platform without its client id and secret answers 503',
    '`NOT_CONFIGURED` to `social-connect`; the sandbox (the default) needs none. The tests point the URLs at fakes.',
    '',
    '| Variable | Default | Used by | Meaning |',
    '| --- | --- | --- | --- |',
    ...settingRows,
    '',
  ].join('\n');
}

describe('docs/platforms.md', () => {
  it('is what the registry says (regenerate it with -u after changing a platform)', async () => {
    const text = await format(render(), { ...(await resolveConfig(DOC)), parser: 'markdown' });
    await expect(text).toMatchFileSnapshot(DOC);
  });
});
