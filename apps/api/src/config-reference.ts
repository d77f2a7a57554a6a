import path from 'node:path';
import type { SettingDoc } from '@app/core';
import { SETTINGS_NAMESPACES } from './settings.js';

/**
 * docs/configuration.md and .env.example, written from the settings classes of every lib (the
 * namespaces of settings.ts): `npm run docs:config` writes them (scripts/config-docs.ts), and
 * config-reference.spec.ts fails while a committed one differs from what this makes.
 */

export const CONFIGURATION_DOC = 'docs/configuration.md';
export const ENV_EXAMPLE = '.env.example';

const cell = (text: string) => text.replace(/\|/g, '\\|');
const shownDefault = (doc: SettingDoc) =>
  doc.value !== undefined && doc.default === doc.value ? `\`${doc.value}\`` : doc.default;

/** The variables only a script or the tests read: not settings of the service. */
const OTHER_VARIABLES =
  'Only `npm run seed` reads `SEED_API_URL`; only the tests read `TEST_DATABASE_URL` and `KEEP_TEST_DB`.';

/**
 * docs/configuration.md, before formatting (the writer and the test format it with the repository's Prettier settings).
 */
export function renderConfigurationDoc(): string {
  const sections = SETTINGS_NAMESPACES.flatMap((namespace) => [
    `### \`${namespace.namespace}\` (${namespace.lib})`,
    '',
    namespace.description,
    '',
    '| Variable | Default | Required in production | Meaning |',
    '| --- | --- | --- | --- |',
    ...namespace
      .docs()
      .map(
        (doc) =>
          `| \`${doc.name}\` | ${cell(shownDefault(doc))} ` +
          `| ${doc.requiredInProduction ? 'yes' : ''} | ${cell(doc.description)} |`,
      ),
    '',
  ]);
  const required = SETTINGS_NAMESPACES.flatMap((namespace) => namespace.docs())
    .filter((doc) => doc.requiredInProduction)
    .map((doc) => `\`${doc.name}\``)
    .sort();
  return [
    '# Configuration',
    '',
    '<!-- Generated from the settings classes by `npm run ' +
      'docs:config` (scripts/config-docs.ts): do not edit by hand. -->',
    '',
    'Every setting is an environment variable. Each lib declares ' +
      'the variables it reads in a settings class beside the code',
    'that uses them (`libs/<lib>/src/…/<name>.config.ts`): one ' +
      'property per variable with its default, its class-validator',
    'rules and its description, registered as an @nestjs/config namespace (`registerAs`) whose `KEY` injects it',
    '(`@Inject(mailConfig.KEY) mail: MailConfig`). The app reads ' +
      'every namespace at start (`apps/api/src/settings.ts`): an',
    'invalid value stops the start with exit code 1 and one line ' +
      'per problem, every problem of every lib at once, before',
    'anything connects. This page and `.env.example` are generated ' +
      'from those classes (`npm run docs:config`); a unit test',
    'fails while either differs from a fresh generation.',
    '',
    '## Where the values come from',
    '',
    '- The environment of the process.',
    '- `.env` in the working directory, read by the entry points ' +
      '(the server and its tracing preload, the migrations CLI,',
    '  the seed script): a variable set in the real environment ' +
      'wins over the file, and no file is fine. Start one with',
    '  `cp .env.example .env`: every line of the example is commented out and shows the default. Git ignores `.env`.',
    '- The tests never read `.env`: they build their settings from their own values (`test/support/app.ts`), and the',
    '  start-up tests run the server in an empty working directory.',
    '- An empty value (`NAME=`) counts as unset.',
    '',
    '## Secrets',
    '',
    `A production process (any \`NODE_ENV\` other than \`development\` or ` +
      `\`test\`, including none) needs ${required.slice(0, -1).join(', ')}`,
    `and ${required[required.length - 1]}; without them it stops with one line naming every missing one, for example`,
    `\`Invalid configuration: ${required.map((name) => name.replaceAll('`', '')).join(', ')} ` +
      `must be set (NODE_ENV is not development or test)\`.`,
    'No secret is written in the source. A development or test process (`npm start` and `npm run seed` set',
    '`NODE_ENV=development` when it is unset; the tests set `test`) without `JWT_SECRET` or `ENCRYPTION_KEY` generates',
    'both once per installation, 32 random bytes each, in ' +
      '`.storefront/development-secrets.json` in the working directory',
    '(mode 0600, ignored by git): the API, the worker, restarts ' +
      'and test runs of that checkout share them, and it logs one',
    'warning at start. Delete the file to draw new ones (tokens ' +
      'signed and webhook secrets sealed with the old ones stop',
    'working). `PUBLIC_API_KEY` keeps the documented development value `sf_public_development_key`: it identifies the',
    'client app and is public by design, not a secret.',
    '',
    '## Settings by lib',
    '',
    'One table per namespace, in the order the app reads them; ' +
      'the heading names the namespace and the lib that owns it.',
    '',
    ...sections,
    OTHER_VARIABLES,
    '',
  ].join('\n');
}

/** One line of .env.example text: no Markdown code marks. */
const plain = (text: string) => text.replace(/`/g, '');
/** A value as .env reads it back: quoted when it has spaces or a `#`. */
const envValue = (value: string) => (/[\s#"']/.test(value) ? JSON.stringify(value) : value);

/**
 * docs/configuration.md as committed: the rendering formatted with the repository's Prettier settings (`root`: the
 * checkout).
 */
export async function formattedConfigurationDoc(root: string): Promise<string> {
  // Prettier is a development dependency: loaded only by the writer and the test, never by the server.
  const { format, resolveConfig } = await import('prettier');
  const file = path.join(root, CONFIGURATION_DOC);
  return format(renderConfigurationDoc(), { ...(await resolveConfig(file)), parser: 'markdown' });
}

/** .env.example: every setting, commented out, with its default and one line on what it is. */
export function renderEnvExample(): string {
  const lines = [
    '# Settings of the Storefront Platform API. Copy this file to .env and set what you need; the real environment',
    '# wins over .env. Every line shows the default; an empty ' +
      'value counts as unset. docs/configuration.md explains each.',
    '# Generated from the settings classes by `npm run docs:config`: do not edit by hand.',
  ];
  for (const namespace of SETTINGS_NAMESPACES) {
    lines.push('', `# --- ${namespace.namespace} (${namespace.lib}) ---`);
    for (const doc of namespace.docs()) {
      const facts = [
        doc.requiredInProduction ? 'Required in production.' : '',
        doc.value === undefined && doc.default !== 'unset' ? `Default: ${plain(doc.default)}.` : '',
      ].filter(Boolean);
      lines.push(
        `# ${[plain(doc.description), ...facts].join(' ')}`,
        `# ${doc.name}=${doc.value === undefined ? '' : envValue(doc.value)}`,
      );
    }
  }
  return `${lines.join('\n')}\n`;
}
