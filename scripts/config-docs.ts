/**
 * Writes docs/configuration.md and .env.example from the settings classes of every lib
 * (apps/api/src/config-reference.ts). Usage: `npm run docs:config` after changing a setting; the unit
 * test apps/api/src/config-reference.spec.ts fails until both are written again.
 */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  CONFIGURATION_DOC,
  ENV_EXAMPLE,
  formattedConfigurationDoc,
  renderEnvExample,
} from '../apps/api/src/config-reference.js';

// Built to dist/scripts/: the checkout is two folders up.
const ROOT = fileURLToPath(new URL('../../', import.meta.url));

fs.writeFileSync(path.join(ROOT, CONFIGURATION_DOC), await formattedConfigurationDoc(ROOT));
fs.writeFileSync(path.join(ROOT, ENV_EXAMPLE), renderEnvExample());
console.log(`Wrote ${CONFIGURATION_DOC} and ${ENV_EXAMPLE}`);
