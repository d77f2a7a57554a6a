import { ValidationPipe, type ArgumentMetadata, type ValidationPipeOptions } from '@nestjs/common';
import type { ValidationError, ValidatorOptions } from 'class-validator';
import { BoundedCache } from '../crypto/bounded-cache.js';
import { CompiledBodies } from './compiled-bodies.js';
import { memoisedValidator } from './memoised-validator.js';

/** Validated queries kept per DTO class, and the longest query (in its key's form) kept. */
export const QUERY_CACHE_SIZE = 256;
export const MAX_QUERY_KEY_LENGTH = 2048;

/** Keys Nest's pipe deletes from the value before it validates: such a query is left to it. */
const STRIPPED_KEYS = new Set(['__proto__', 'constructor', 'prototype']);

type Primitive = string | number | boolean | bigint | symbol | null | undefined;

/** A validated query DTO whose fields are all primitives, so that a copy of it is the pipe's answer again. */
class ValidatedQuery {
  private constructor(
    private readonly prototype: object,
    private readonly fields: Record<string, Primitive>,
  ) {}

  /** The DTO as a template, or undefined when it holds anything a shallow copy would share or miss. */
  static of(dto: unknown, metatype: Function): ValidatedQuery | undefined {
    if (dto === null || typeof dto !== 'object' || Object.getPrototypeOf(dto) !== metatype.prototype) return undefined;
    const fields: Record<string, Primitive> = Object.create(null);
    for (const key of Reflect.ownKeys(dto)) {
      if (typeof key !== 'string' || key === '__proto__') return undefined;
      const field = Object.getOwnPropertyDescriptor(dto, key)!;
      const { value } = field;
      if (!('value' in field) || !field.writable || !field.enumerable || !field.configurable) return undefined;
      if ((value !== null && typeof value === 'object') || typeof value === 'function') return undefined;
      fields[key] = value as Primitive;
    }
    return new ValidatedQuery(metatype.prototype as object, fields);
  }

  /** A new DTO, as the pipe would build it: the handler owns it and may change it. */
  copy(): object {
    return Object.assign(Object.create(this.prototype) as object, this.fields);
  }
}

/**
 * Whether the pipe's answer for a valid body is the one `CompiledBodies` makes: the DTO instance (`transform`),
 * made by class-transformer's defaults, checked with every rule (no groups, nothing skipped). Other options
 * (the plain value answered, validation groups, missing properties skipped) leave every body to the pipe.
 */
function compilesBodies(options: ValidationPipeOptions): boolean {
  return (
    options.transform === true &&
    options.transformOptions === undefined &&
    options.expectedType === undefined &&
    !options.groups?.length &&
    !options.always &&
    !options.strictGroups &&
    !options.skipMissingProperties &&
    !options.skipNullProperties &&
    !options.skipUndefinedProperties
  );
}

/**
 * The strict ValidationPipe of every /functions/v1 route, with three shortcuts that leave its answers as they were:
 *
 * - class-validator reads each DTO class's rules once (`MemoisedMetadataStorage`) instead of filtering its whole
 *   registry on every call;
 * - a JSON body that passes is made into its DTO and checked by its class's compiled plan (`CompiledBodies`), the
 *   pipe's own DTO; a body the plan is not sure of (one that fails, above all) goes through the pipe, which builds
 *   the errors;
 * - a query DTO (`@Query() params: SomeQuery`) is validated once per distinct query string: the query's fields are
 *   strings, and the DTOs' transforms and rules are functions of them alone, so the same query gives the same DTO.
 *   A valid query whose DTO holds only primitives is kept (per DTO class, the last `QUERY_CACHE_SIZE`), and the
 *   next request with it gets a fresh copy; an invalid one goes through the pipe every time, so its errors are
 *   built as before.
 *
 * A query DTO's transforms and validators must therefore not read anything but the query (the time, the caller,
 * settings): such a rule belongs in the handler.
 */
export class StrictValidationPipe extends ValidationPipe {
  private readonly queries = new Map<Function, BoundedCache<string, ValidatedQuery>>();
  /** Undefined when the options change what the pipe answers for a valid body (`compilesBodies`). */
  private readonly bodies: CompiledBodies | undefined;

  constructor(options: Omit<ValidationPipeOptions, 'validatorPackage'>) {
    super({ ...options, validatorPackage: memoisedValidator });
    this.bodies = compilesBodies(options) ? new CompiledBodies(memoisedValidator.getMetadataStorage()) : undefined;
  }

  // Not async: the routes' other parameters (path parameters, bodies) go to Nest's pipe without another promise.
  override transform(value: unknown, metadata: ArgumentMetadata): Promise<unknown> {
    const bodies = this.bodies;
    if (
      bodies !== undefined &&
      metadata.type === 'body' &&
      this.expectedType === undefined &&
      this.toValidate(metadata)
    ) {
      const dto = bodies.build(metadata.metatype!, value);
      if (dto !== undefined) return Promise.resolve(dto);
    }
    const key = this.queryKey(value, metadata);
    if (key === null) return super.transform(value, metadata);
    const metatype = metadata.metatype!;
    let cache = this.queries.get(metatype);
    if (cache === undefined) this.queries.set(metatype, (cache = new BoundedCache(QUERY_CACHE_SIZE)));
    const known = cache.get(key);
    if (known !== undefined) return Promise.resolve(known.copy());
    return super.transform(value, metadata).then((dto: unknown) => {
      const validated = ValidatedQuery.of(dto, metatype);
      if (validated !== undefined) cache.set(key, validated);
      return dto;
    });
  }

  /** Nest's pipe asks the package it was given, which another pipe created later would replace; this one doesn't. */
  protected override validate(object: object, options?: ValidatorOptions): Promise<ValidationError[]> {
    return memoisedValidator.validate(object, options);
  }

  /**
   * The cache key of a whole query validated against a DTO class: its fields in order, as JSON; null for
   * anything else (a single query parameter, a value that is not a plain object of strings, a key the pipe
   * would strip, a query too long to keep).
   */
  private queryKey(value: unknown, metadata: ArgumentMetadata): string | null {
    if (metadata.type !== 'query' || metadata.data !== undefined || this.expectedType !== undefined) return null;
    if (!this.toValidate(metadata) || value === null || typeof value !== 'object') return null;
    const prototype: unknown = Object.getPrototypeOf(value);
    if (prototype !== null && prototype !== Object.prototype) return null;
    const parts: string[] = [];
    for (const name of Object.keys(value)) {
      const field = (value as Record<string, unknown>)[name];
      if (typeof field !== 'string' || STRIPPED_KEYS.has(name)) return null;
      parts.push(name, field);
    }
    const key = JSON.stringify(parts);
    return key.length <= MAX_QUERY_KEY_LENGTH ? key : null;
  }
}
