import { accessSync, constants, statSync } from 'node:fs';
import path from 'node:path';

/** The names a Chromium binary goes by on PATH: Debian's package installs `chromium`. */
const NAMES = ['chromium', 'chromium-browser', 'google-chrome-stable', 'google-chrome'];

export type ChromiumLookup = { path: string; reason?: undefined } | { path?: undefined; reason: string };

function isExecutableFile(file: string): boolean {
  try {
    accessSync(file, constants.X_OK);
    return statSync(file).isFile();
  } catch {
    return false;
  }
}

/**
 * The Chromium the browser tests drive: CHROMIUM_PATH when set, else the first of NAMES on PATH. When
 * there is none, `reason` says why, for the test to print as it skips.
 */
export function findChromium(env: NodeJS.ProcessEnv = process.env): ChromiumLookup {
  if (env.CHROMIUM_PATH) {
    return isExecutableFile(env.CHROMIUM_PATH)
      ? { path: env.CHROMIUM_PATH }
      : { reason: `CHROMIUM_PATH (${env.CHROMIUM_PATH}) is not an executable file` };
  }
  for (const dir of (env.PATH ?? '').split(path.delimiter).filter(Boolean)) {
    for (const name of NAMES) {
      const file = path.join(dir, name);
      if (isExecutableFile(file)) return { path: file };
    }
  }
  return {
    reason:
      `no Chromium: CHROMIUM_PATH is unset and none of ${NAMES.join(', ')} is on PATH ` +
      "(install Debian's chromium package: bash scripts/services.sh --chromium)",
  };
}
