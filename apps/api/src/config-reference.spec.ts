import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { CONFIGURATION_DOC, ENV_EXAMPLE, formattedConfigurationDoc, renderEnvExample } from './config-reference.js';
import { SETTINGS_NAMESPACES } from './settings.js';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const committed = (file: string) => fs.readFileSync(path.join(ROOT, file), 'utf8');
const STALE = 'is stale: run `npm run docs:config` and commit the result';

describe('the configuration reference', () => {
  it(`${CONFIGURATION_DOC} is what the settings classes say`, async () => {
    expect(committed(CONFIGURATION_DOC), `${CONFIGURATION_DOC} ${STALE}`).toBe(await formattedConfigurationDoc(ROOT));
  });

  it(`${ENV_EXAMPLE} is what the settings classes say`, () => {
    expect(committed(ENV_EXAMPLE), `${ENV_EXAMPLE} ${STALE}`).toBe(renderEnvExample());
  });

  it('lists every variable of every namespace, with its lib, in both', () => {
    const doc = committed(CONFIGURATION_DOC);
    const example = committed(ENV_EXAMPLE);
    for (const namespace of SETTINGS_NAMESPACES) {
      expect(doc).toContain(`### \`${namespace.namespace}\` (${namespace.lib})`);
      for (const setting of namespace.docs()) {
        expect(doc).toMatch(new RegExp(`^\\| \`${setting.name}\` +\\|`, 'm'));
        expect(example).toMatch(new RegExp(`^# ${setting.name}=`, 'm'));
      }
    }
  });

  it('.env.example changes nothing when copied to .env: every setting is commented out', () => {
    const lines = committed(ENV_EXAMPLE).split('\n').filter(Boolean);
    expect(lines.filter((line) => !line.startsWith('#'))).toEqual([]);
    // A line shows the default as .env would read it back.
    expect(lines).toContain('# PORT=3000');
    expect(lines).toContain('# SESSION_MAX_AGE=30d');
    expect(lines).toContain('# MAIL_FROM="Storefront Platform <no-reply@storefront.localhost>"');
    expect(lines).toContain('# PUBLIC_BASE_URL=');
  });
});
