import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { ValidationPipe, type ArgumentMetadata, type Type } from '@nestjs/common';
import { ROUTE_ARGS_METADATA } from '@nestjs/common/constants.js';
import { RouteParamtypes } from '@nestjs/common/enums/route-paramtypes.enum.js';
import * as classValidator from 'class-validator';
import fc from 'fast-check';
import { ApiError, AppValidation, STRICT_VALIDATION_OPTIONS, strictValidationPipe } from '@app/core';

const LIBS = fileURLToPath(new URL('../../../libs/', import.meta.url));

/**
 * Nest's ValidationPipe as the routes had it: class-validator's own `validate`, every lookup made anew (the nested
 * binary value check reads the package of the pipe created last, the same rules either way).
 */
class ReferencePipe extends ValidationPipe {
  protected override validate(object: object, options?: classValidator.ValidatorOptions) {
    return classValidator.validate(object, options);
  }
}

interface Route {
  name: string;
  metadata: ArgumentMetadata;
}

/** Every `@Query()` and `@Body()` parameter of every controller, with the DTO class it is validated against. */
async function routeParameters(): Promise<Route[]> {
  const files = fs
    .readdirSync(LIBS, { recursive: true, encoding: 'utf8' })
    .filter((file) => file.endsWith('.controller.ts'))
    .sort();
  const routes: Route[] = [];
  for (const file of files) {
    const module = (await import(path.join(LIBS, file))) as Record<string, unknown>;
    for (const controller of Object.values(module)) {
      if (typeof controller !== 'function') continue;
      for (const method of Object.getOwnPropertyNames(controller.prototype as object)) {
        const args = Reflect.getMetadata(ROUTE_ARGS_METADATA, controller, method) as
          Record<string, { index: number; data?: string }> | undefined;
        const types = Reflect.getMetadata('design:paramtypes', controller.prototype as object, method) as
          Type[] | undefined;
        for (const [key, { index, data }] of Object.entries(args ?? {})) {
          const kind = Number(key.split(':')[0]);
          const type = kind === RouteParamtypes.QUERY ? 'query' : kind === RouteParamtypes.BODY ? 'body' : undefined;
          const metatype = types?.[index];
          if (type === undefined || data !== undefined || metatype === undefined) continue;
          if ([Object, String, Number, Boolean, Array].includes(metatype as never)) continue;
          routes.push({ name: `${controller.name}.${method} ${type} ${metatype.name}`, metadata: { type, metatype } });
        }
      }
    }
  }
  return routes;
}

/**
 * A DTO's rules: the names of its fields, the strings its rules name (enums' values) and each field's example in
 * the OpenAPI document (a valid value, mostly).
 */
function rulesOf(metatype: Function): { fields: string[]; words: string[]; examples: Map<string, unknown> } {
  const metadatas = classValidator
    .getMetadataStorage()
    .getTargetValidationMetadatas(metatype, undefined as unknown as string, false, false);
  const words = metadatas.flatMap((metadata) =>
    ((metadata.constraints ?? []) as unknown[]).flatMap((constraint) =>
      Array.isArray(constraint) ? constraint.filter((item): item is string => typeof item === 'string') : [],
    ),
  );
  const fields = [...new Set(metadatas.map((metadata) => metadata.propertyName))];
  const examples = new Map<string, unknown>();
  for (const field of fields) {
    const property = Reflect.getMetadata('swagger/apiModelProperties', metatype.prototype as object, field) as
      { example?: unknown } | undefined;
    if (property?.example !== undefined) examples.set(field, property.example);
  }
  return { fields, words, examples };
}

/**
 * Objects for a DTO: its fields (all in order, or some in any order), each with its example, a word of the rules
 * or another value, and now and then a field it does not have.
 */
function objectsFor(metatype: Function, valueFor: (example: unknown, words: string[]) => fc.Arbitrary<unknown>) {
  const { fields, words, examples } = rulesOf(metatype);
  const names = fc.oneof(fc.constant(fields), fc.shuffledSubarray(fields));
  const unknown = fc.option(fc.constantFrom('extra', 'Limit', 'constructor', '__proto__', 'prototype'), { freq: 6 });
  return fc.tuple(names, unknown).chain(([chosen, extra]) => {
    const keys = extra === null || chosen.includes(extra) ? chosen : [...chosen, extra];
    return fc.tuple(...keys.map((key) => fc.tuple(fc.constant(key), valueFor(examples.get(key), words))));
  });
}

/** What a pipe answered, as comparable data: the DTO (its class, its keys in order and their values) or the error. */
function shape(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(shape);
  if (value !== null && typeof value === 'object') {
    const prototype = Object.getPrototypeOf(value) as { constructor?: { name?: string } } | null;
    return {
      class: prototype === null ? null : prototype.constructor?.name,
      fields: Reflect.ownKeys(value).map((key) => [String(key), shape((value as Record<PropertyKey, unknown>)[key])]),
    };
  }
  return [typeof value, Object.is(value, -0) ? '-0' : String(value)];
}

async function answer(pipe: ValidationPipe, value: unknown, metadata: ArgumentMetadata) {
  try {
    return { dto: shape(await pipe.transform(value, metadata)), input: shape(value) };
  } catch (error) {
    if (!(error instanceof ApiError)) throw error;
    return { status: error.getStatus(), code: error.code, details: error.details, input: shape(value) };
  }
}

const UUID = '9a1b2c3d-4e5f-4a6b-8c7d-0e1f2a3b4c5d';
const TEXTS = [
  ...['', ' ', '0', '1', '20', '100', '101', '-1', '1.5', '1e2', '0x10', ' 7 ', 'NaN', 'abc', 'true', ' tote '],
  ...[UUID, UUID.toUpperCase(), 'not-a-uuid', '2026-11-21T00:00:00Z', '2026-11-21', '2026-W47-1T00:00:00Z'],
  ...['ada@example.com', 'https://example.com/a.jpg', 'x'.repeat(101), 'y'.repeat(201), 'eyJ0IjoiMjAyNi0xMS0yMiJ9'],
];

// Each property has pipes of its own; the strict one keeps what it learnt from run to run, as from request to request.
describe('the routes’ strict validation answers as Nest’s ValidationPipe does', () => {
  let routes: Route[];
  beforeAll(async () => {
    routes = await routeParameters();
  });

  it('finds the routes’ query and body DTOs', () => {
    const names = routes.map((route) => route.name);
    expect(names).toContain('ProductsController.list query ListProductsQuery');
    expect(names).toContain('OrdersController.place body PlaceOrderDto');
    expect(routes.filter((route) => route.metadata.type === 'query').length).toBeGreaterThanOrEqual(10);
  });

  it('a query DTO: the same DTO or errors, the request’s query left the same, asked once or again', async () => {
    const reference = new ReferencePipe(STRICT_VALIDATION_OPTIONS);
    const pipe = strictValidationPipe();
    const queries = routes.filter((route) => route.metadata.type === 'query');
    const query = fc.constantFrom(...queries).chain((route) => {
      const queryValue = (example: unknown, words: string[]) => {
        const text = fc.oneof(
          { weight: 3, arbitrary: fc.constant(example === undefined ? '' : String(example)) },
          { weight: 3, arbitrary: fc.constantFrom(...TEXTS, ...words) },
          { weight: 1, arbitrary: fc.string({ maxLength: 8 }) },
        );
        return fc.oneof({ weight: 8, arbitrary: text }, { weight: 1, arbitrary: fc.array(text, { maxLength: 3 }) });
      };
      return fc.tuple(fc.constant(route), objectsFor(route.metadata.metatype!, queryValue), fc.boolean());
    });
    // A query object as Fastify's parser makes it (no prototype), or a plain object.
    const build = (entries: [string, unknown][], bare: boolean) => {
      const object: Record<string, unknown> = bare ? Object.create(null) : {};
      for (const [key, value] of entries)
        Object.defineProperty(object, key, { value, enumerable: true, writable: true, configurable: true });
      return object;
    };
    await fc.assert(
      fc.asyncProperty(query, async ([route, entries, bare]) => {
        const expected = await answer(reference, build(entries, bare), route.metadata);
        expect(await answer(pipe, build(entries, bare), route.metadata)).toEqual(expected);
        expect(await answer(pipe, build(entries, bare), route.metadata)).toEqual(expected);
      }),
      { numRuns: 2000 },
    );
  });

  it('a body DTO: the same DTO or the same errors, in the same order', async () => {
    const reference = new ReferencePipe(STRICT_VALIDATION_OPTIONS);
    const pipe = strictValidationPipe();
    const bodies = routes.filter((route) => route.metadata.type === 'body');
    const allFields = [...new Set(bodies.flatMap((route) => rulesOf(route.metadata.metatype!).fields))];
    const body = fc.constantFrom(...bodies).chain((route) => {
      const bodyValue = (example: unknown, words: string[]) => {
        const leaf = fc.oneof(
          fc.constantFrom(...TEXTS, ...words),
          fc.constantFrom(0, 1, -1, 1.5, 24.9, 100, 1e-7, 10_001, null, true, false),
        );
        const { value } = fc.letrec((tie) => ({
          value: fc.oneof(
            { depthSize: 'small', withCrossShrink: true },
            { weight: 6, arbitrary: leaf },
            { weight: 1, arbitrary: fc.array(tie('value'), { maxLength: 3 }) },
            {
              weight: 1,
              arbitrary: fc.dictionary(fc.constantFrom(...allFields, 'extra'), tie('value'), { maxKeys: 3 }),
            },
          ),
        }));
        return example === undefined ? value : fc.oneof({ weight: 3, arbitrary: fc.constant(example) }, value);
      };
      return fc.tuple(fc.constant(route), objectsFor(route.metadata.metatype!, bodyValue));
    });
    await fc.assert(
      fc.asyncProperty(body, async ([route, entries]) => {
        const json = JSON.stringify(Object.fromEntries(entries));
        const expected = await answer(reference, JSON.parse(json), route.metadata);
        expect(await answer(pipe, JSON.parse(json), route.metadata)).toEqual(expected);
      }),
      { numRuns: 1500 },
    );
  });
});

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));

/** Every source file of the libraries and the app that declares a controller, whatever its name. */
function controllerFiles(): string[] {
  return ['libs', 'apps']
    .flatMap((dir) =>
      fs
        .readdirSync(path.join(ROOT, dir), { recursive: true, encoding: 'utf8' })
        .map((file) => path.join(ROOT, dir, file)),
    )
    .filter((file) => file.endsWith('.ts') && !file.endsWith('.spec.ts') && !file.endsWith('.d.ts'))
    .filter((file) => fs.readFileSync(file, 'utf8').includes('@Controller('))
    .sort();
}

/** The handlers' names of a controller class, its own and those it inherits. */
function handlerNames(controller: Function): string[] {
  const names = new Set<string>();
  for (let proto = controller.prototype as object | null; proto && proto !== Object.prototype;) {
    for (const name of Object.getOwnPropertyNames(proto)) if (name !== 'constructor') names.add(name);
    proto = Object.getPrototypeOf(proto) as object | null;
  }
  return [...names];
}

/** Every parameter of every route handler: its kind (Nest's RouteParamtypes, or the custom key), type and pipes. */
async function everyParameter() {
  const parameters: { name: string; kind: string; metatype: unknown; pipes: unknown[] }[] = [];
  for (const file of controllerFiles()) {
    const module = (await import(file)) as Record<string, unknown>;
    for (const controller of Object.values(module)) {
      if (typeof controller !== 'function' || !Reflect.getMetadata('__controller__', controller)) continue;
      for (const method of handlerNames(controller)) {
        const args = Reflect.getMetadata(ROUTE_ARGS_METADATA, controller, method) as
          Record<string, { index: number; data?: string; pipes?: unknown[] }> | undefined;
        const types = Reflect.getMetadata('design:paramtypes', controller.prototype as object, method) as
          unknown[] | undefined;
        for (const [key, { index, data, pipes }] of Object.entries(args ?? {})) {
          const kind = key.split(':')[0]!;
          const name = `${controller.name}.${method} #${index}${data === undefined ? '' : ` (${data})`}`;
          parameters.push({ name, kind, metatype: types?.[index], pipes: pipes ?? [] });
        }
      }
    }
  }
  return parameters;
}

// The app has no global pipe: each body and query carries the validation pipe, and nothing else needs one.
describe('the routes’ parameters', () => {
  it('every body and query, whole or one field, goes through AppValidation first', async () => {
    const parameters = await everyParameter();
    const read = parameters.filter(
      ({ kind }) => kind === String(RouteParamtypes.BODY) || kind === String(RouteParamtypes.QUERY),
    );
    expect(read.length).toBeGreaterThanOrEqual(50);
    expect(controllerFiles().map((file) => path.relative(ROOT, file))).toContain('apps/api/src/queue-dashboard.ts');
    const unvalidated = read.filter(({ pipes }) => pipes[0] !== AppValidation).map(({ name }) => name);
    expect(unvalidated).toEqual([]);
  });

  it('every path parameter is a string (a conversion would be a pipe of its own)', async () => {
    const paths = (await everyParameter()).filter(({ kind }) => kind === String(RouteParamtypes.PARAM));
    expect(paths.length).toBeGreaterThanOrEqual(30);
    expect(paths.filter(({ metatype }) => metatype !== String).map(({ name }) => name)).toEqual([]);
  });
});
