import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { RequestMethod } from '@nestjs/common';
import { AI_FUNCTION_CONTROLLERS, AI_FUNCTION_HANDLERS, AI_FUNCTIONS } from './registry.js';

const API_DOC = fileURLToPath(new URL('../../../../docs/api.md', import.meta.url));
const pascal = (name: string) => name.replace(/(^|-)([a-z])/g, (_, __, letter: string) => letter.toUpperCase());

/** The POST routes of a controller class: its methods' paths under its own. */
function postRoutes(controller: new (...args: never[]) => unknown): string[] {
  const base = Reflect.getMetadata('path', controller) as string;
  const proto = controller.prototype as Record<string, unknown>;
  return Object.getOwnPropertyNames(proto)
    .filter(
      (key) => key !== 'constructor' && Reflect.getMetadata('method', proto[key] as object) === RequestMethod.POST,
    )
    .map((key) => `${base}/${Reflect.getMetadata('path', proto[key] as object) as string}`);
}

/** What adding an AI function must not forget (docs/extending.md § An AI function). */
describe('the AI function registry', () => {
  it('declares each function once, with a route name, whole credits and an hourly maximum', () => {
    const names = AI_FUNCTIONS.map((fn) => fn.name);
    expect(new Set(names).size).toBe(names.length);
    for (const fn of AI_FUNCTIONS) {
      expect(fn.name, fn.name).toMatch(/^[a-z]+(-[a-z]+)*$/);
      expect(Number.isInteger(fn.credits) && fn.credits >= 1, `${fn.name} credits`).toBe(true);
      expect(Number.isInteger(fn.hourlyLimit) && fn.hourlyLimit >= 1, `${fn.name} hourlyLimit`).toBe(true);
    }
  });

  it(
    'gives each function its route (POST /functions/v1/<name>, ' + 'one per controller) and a handler of its command',
    () => {
      expect(AI_FUNCTION_CONTROLLERS.flatMap(postRoutes)).toEqual(AI_FUNCTIONS.map((fn) => `functions/v1/${fn.name}`));
      expect(AI_FUNCTION_CONTROLLERS.map((controller) => controller.name)).toEqual(
        AI_FUNCTIONS.map((fn) => `${pascal(fn.name)}Controller`),
      );
      const commands = AI_FUNCTION_HANDLERS.map(
        (handler) => (Reflect.getMetadata('__commandHandler__', handler) as { name: string }).name,
      );
      expect(commands).toEqual(AI_FUNCTIONS.map((fn) => `${pascal(fn.name)}Command`));
    },
  );

  it("docs/api.md's table of AI functions has each one's credits and hourly maximum", () => {
    const doc = readFileSync(API_DOC, 'utf8');
    // The section "AI functions and credits", up to the next second-level heading.
    const section = doc.split(/^## /m).find((part) => part.startsWith('AI functions and credits\n')) ?? '';
    // | POST | `/functions/v1/<name>` | body | answer | credits | max per hour |
    const rows = [
      ...section.matchAll(/^\| POST +\| `\/functions\/v1\/([a-z-]+)` +\|[^|\n]*\|[^|\n]*\| (\d+) +\| (\d+) +\|$/gm),
    ].map(([, name, credits, limit]) => ({ name, credits: Number(credits), hourlyLimit: Number(limit) }));
    expect(rows).toEqual(AI_FUNCTIONS.map(({ name, credits, hourlyLimit }) => ({ name, credits, hourlyLimit })));
  });
});
