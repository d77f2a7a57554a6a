// Adds lock entries for optional, platform-specific packages that `npm install` left out.
//
// This workplace's registry does not serve every platform's native binary (e.g. @swc/core-darwin-arm64),
// so `npm install` writes a package-lock.json without them, and `npm ci` then refuses the lock
// ("Missing: … from lock file"). An entry marked optional satisfies `npm ci`, which skips it when it
// cannot be fetched or does not fit the platform. Run after every `npm install`: `npm run lockfile`.
import fs from 'node:fs';

const path = new URL('../package-lock.json', import.meta.url);
const lock = JSON.parse(fs.readFileSync(path, 'utf8'));
const present = new Set(Object.keys(lock.packages).map((key) => key.replace(/^.*node_modules\//, '')));
const added = [];
for (const meta of Object.values(lock.packages)) {
  for (const [name, spec] of Object.entries(meta.optionalDependencies ?? {})) {
    if (present.has(name) || !/^\d+\.\d+\.\d+/.test(spec.replace(/^[\^~=]/, ''))) continue;
    lock.packages[`node_modules/${name}`] = { version: spec.replace(/^[\^~=]/, ''), optional: true };
    present.add(name);
    added.push(name);
  }
}
lock.packages = Object.fromEntries(
  Object.entries(lock.packages).sort(([a], [b]) => (a === '' ? -1 : b === '' ? 1 : a.localeCompare(b))),
);
fs.writeFileSync(path, `${JSON.stringify(lock, null, 2)}\n`);
console.log(
  added.length ? `added ${added.length} optional entries: ${added.join(', ')}` : 'package-lock.json already complete',
);
