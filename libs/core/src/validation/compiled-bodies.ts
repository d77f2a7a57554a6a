import { TransformationType } from 'class-transformer';
import { defaultMetadataStorage } from 'class-transformer/cjs/storage.js';
import { ValidationTypes, type ValidationArguments } from 'class-validator';
import type { MemoisedMetadataStorage } from './memoised-validator.js';

type Metadata = ReturnType<MemoisedMetadataStorage['getTargetValidationMetadatas']>[number];
type TypeMetadata = NonNullable<ReturnType<typeof defaultMetadataStorage.findTypeMetadata>>;
type Condition = (object: object, value: unknown) => boolean;

/** A validated property of a DTO class: its rules in the order class-validator applies them. */
interface PropertyPlan {
  name: string;
  /** `@IsOptional`, `@ValidateIf`: when one says no, nothing else of the property is checked. */
  conditions: Metadata[];
  /** `@IsDefined` first, then the validators (`@IsUUID`, `@Min`, `@ArrayUnique`…). */
  checks: Metadata[];
  /** For `@ValidateNested`: its `@Type` (what to make of the value) and the schema it is checked for. */
  nested: { type: TypeMetadata; schema: string } | undefined;
}

/** What a DTO class's bodies are made and checked with. */
interface ClassPlan {
  properties: Map<string, PropertyPlan>;
}

/** A class's plan (null: its bodies are the pipe's), and the rules it was compiled from: stale once they change. */
interface Compiled {
  metadatas: Metadata[];
  plan: ClassPlan | null;
}

/** The types class-transformer converts a value to rather than making an instance of (a nested `@Type` of them). */
const CONVERTED = new Set<unknown>([String, Number, Boolean, Date, Buffer]);

/** The keys Nest's pipe deletes from a body before anything else: a class that declares one is the pipe's. */
const STRIPPED = new Set(['__proto__', 'constructor', 'prototype']);

/** Whether a class or one it extends defines a getter or setter of that name (class-transformer would call it). */
function hasAccessor(type: Function, name: string): boolean {
  for (let proto: object | null = type.prototype as object; proto !== null; proto = Object.getPrototypeOf(proto)) {
    const descriptor = Object.getOwnPropertyDescriptor(proto, name);
    if (descriptor !== undefined) return descriptor.get !== undefined || descriptor.set !== undefined;
  }
  return false;
}

/** Where the fast path cannot tell: the pipe then decides, and builds the errors. */
const UNSURE = Symbol('unsure');

const isPlainObject = (value: unknown): value is Record<string, unknown> =>
  value !== null && typeof value === 'object' && Object.getPrototypeOf(value) === Object.prototype;

const isPlainArray = (value: unknown): value is unknown[] =>
  Array.isArray(value) && Object.getPrototypeOf(value) === Array.prototype;

const isThenable = (value: unknown): boolean =>
  value !== null &&
  (typeof value === 'object' || typeof value === 'function') &&
  typeof (value as { then?: unknown }).then === 'function';

/** The rule types a plan takes; any other (`@ValidatePromise`) leaves the class to the pipe. */
const PLANNED = new Set([
  ValidationTypes.CUSTOM_VALIDATION,
  ValidationTypes.IS_DEFINED,
  ValidationTypes.CONDITIONAL_VALIDATION,
  ValidationTypes.NESTED_VALIDATION,
  ValidationTypes.WHITELIST,
]);

/**
 * A JSON body's DTO, made and checked from each DTO class's decorators compiled once, for the bodies that pass.
 *
 * The strict pipe turns a body into its DTO with class-transformer and checks it with class-validator; both walk
 * their decorator metadata generically on every request (a tenth of an order's work). For a class whose
 * decorators are class-validator's rules, and of class-transformer's only `@Type` on `@ValidateNested`
 * properties, what the pipe answers for a valid JSON body is simple to state: a new instance of the class, each
 * key of the body set on it in the body's order (plain values as they are, arrays of plain values copied, nested
 * objects made the same way), every rule of every property holding. `build` makes that instance and applies the
 * same rules: each validator's own `validate`, with the arguments class-validator gives it.
 *
 * Whatever it is not sure of is left to the pipe (`undefined`): a key the class does not declare (the pipe
 * refuses it), a rule that fails (the pipe builds the error list), an asynchronous rule, a value of a kind it does
 * not make (an object where no `@Type` says what to make), a class with any other class-transformer decorator.
 * For a body `build` accepts, the pipe's answer is the same DTO (compiled-bodies.spec.ts checks that against the
 * pipe itself on generated bodies); for every other body, the pipe's answer is all there is.
 */
export class CompiledBodies {
  private readonly plans = new WeakMap<Function, Map<string, Compiled>>();

  constructor(private readonly storage: MemoisedMetadataStorage) {}

  /** The DTO of `metatype` the strict pipe would answer for this parsed JSON body, or undefined: ask the pipe. */
  build(metatype: Function, body: unknown): object | undefined {
    let made: object | typeof UNSURE;
    try {
      made = this.make(metatype, undefined, body);
    } catch {
      // A rule or `@Type` function that throws (on a nested object the pipe might not look into): the pipe's.
      return undefined;
    }
    return made === UNSURE ? undefined : made;
  }

  /** An instance of `type` from a plain object, checked against its rules (for `schema`, as class-validator does). */
  private make(type: Function, schema: string | undefined, plain: unknown): object | typeof UNSURE {
    if (!isPlainObject(plain)) return UNSURE;
    const plan = this.plan(type, schema);
    if (plan === null) return UNSURE;
    const entity = new (type as new () => Record<string, unknown>)();
    for (const key of Object.keys(plain)) {
      const property = plan.properties.get(key);
      // Not a property of the class (`__proto__`, `constructor` and `prototype` never are in a plan): the pipe's.
      if (property === undefined) return UNSURE;
      const value = this.value(property, plain, entity);
      if (value === UNSURE) return UNSURE;
      entity[key] = value;
    }
    return this.passes(plan, entity) ? entity : UNSURE;
  }

  /** What class-transformer sets for a key: a plain value as it is, an array of them copied, nested objects made. */
  private value(property: PropertyPlan, plain: Record<string, unknown>, entity: object): unknown {
    const value = plain[property.name];
    const nested = property.nested;
    // The class `@Type` names, asked once per key as class-transformer asks it; one of the types it converts a
    // plain value to (`@Type(() => Number)`) is the pipe's.
    const type =
      nested === undefined
        ? undefined
        : ((nested.type.typeFunction
            ? nested.type.typeFunction({ newObject: entity, object: plain, property: property.name })
            : nested.type.reflectedType) as unknown);
    if (nested !== undefined && (typeof type !== 'function' || CONVERTED.has(type))) return UNSURE;
    if (value === null || typeof value !== 'object') return value;
    if (!isPlainArray(value)) return type === undefined ? UNSURE : this.make(type as Function, nested!.schema, value);
    const items: unknown[] = [];
    for (let i = 0; i < value.length; i++) {
      if (!(i in value)) return UNSURE;
      const item = value[i];
      if (type === undefined) {
        if (item !== null && typeof item === 'object') return UNSURE;
        items.push(item);
      } else {
        const made = this.make(type as Function, nested!.schema, item);
        if (made === UNSURE) return UNSURE;
        items.push(made);
      }
    }
    return items;
  }

  /** Every rule of every property holds, as class-validator applies them. */
  private passes(plan: ClassPlan, entity: Record<string, unknown>): boolean {
    for (const property of plan.properties.values()) {
      const value = entity[property.name];
      let applies = true;
      for (const condition of property.conditions) {
        if (!(condition.constraints[0] as Condition)(entity, value)) applies = false;
      }
      if (!applies) continue;
      for (const check of property.checks) if (!this.holds(check, entity, value)) return false;
      // A nested value was made and checked by `value` (an instance, or an array of them); class-validator refuses
      // null or a plain value there.
      if (property.nested !== undefined && value !== undefined && (value === null || typeof value !== 'object')) {
        return false;
      }
    }
    return true;
  }

  /** One validator rule on the value (on each of its items, for `each`), as class-validator's executor calls it. */
  private holds(check: Metadata, entity: object, value: unknown): boolean {
    if (check.validateIf && !check.validateIf(entity, value)) return true;
    for (const constraint of this.storage.getTargetValidatorConstraints(check.constraintCls)) {
      if (constraint.async) return false;
      const args: ValidationArguments = {
        targetName: entity.constructor ? entity.constructor.name : (undefined as unknown as string),
        property: check.propertyName,
        object: entity,
        value,
        constraints: check.constraints,
      };
      if (!check.each || !(Array.isArray(value) || value instanceof Set || value instanceof Map)) {
        const result: unknown = constraint.instance.validate(value, args);
        if (!result || isThenable(result)) return false;
        continue;
      }
      const items: unknown[] = value instanceof Map ? [...value.values()] : [...value];
      for (const item of items) {
        const result: unknown = constraint.instance.validate(item, args);
        if (!result || isThenable(result)) return false;
      }
    }
    return true;
  }

  /** The class's plan for `schema`, compiled on first use and again once its rules changed; null: the pipe's. */
  private plan(type: Function, schema: string | undefined): ClassPlan | null {
    // What class-validator's executor asks for with the pipe's options (no groups, `always` off, not strict).
    const metadatas = this.storage.getTargetValidationMetadatas(type, schema as string, false, false, undefined);
    const key = schema ?? '';
    let bySchema = this.plans.get(type);
    const known = bySchema?.get(key);
    if (known !== undefined && known.metadatas === metadatas) return known.plan;
    const plan = compile(type, metadatas, this.storage);
    if (bySchema === undefined) this.plans.set(type, (bySchema = new Map()));
    bySchema.set(key, { metadatas, plan });
    return plan;
  }
}

/** Whether class-transformer makes a plain array of an array value of a property of this reflected type. */
function madeAsPlainArray(reflectedType: unknown): boolean {
  if (reflectedType === undefined || reflectedType === Array) return true;
  if (typeof reflectedType !== 'function') return false;
  try {
    // class-transformer's `instantiateArrayType`: the type's own instance when it is a Set or has `push`, else [].
    const made: unknown = new (reflectedType as new () => object)();
    return !(made instanceof Set) && !('push' in (made as object));
  } catch {
    return false;
  }
}

/**
 * A class's plan, or null when its bodies are left to the pipe: no rules (the pipe refuses the body as an unknown
 * value), a rule type the plan does not take, a class-transformer decorator other than a nested property's plain
 * `@Type`, a property that is an accessor or a method, or named as a key the pipe strips, a field its constructor
 * sets that is not validated (the pipe refuses every body then) or that is nested.
 */
function compile(type: Function, metadatas: Metadata[], storage: MemoisedMetadataStorage): ClassPlan | null {
  if (metadatas.length === 0) return null;
  const transformer = defaultMetadataStorage;
  if (
    transformer.getStrategy(type) !== 'none' ||
    transformer.getExposedMetadatas(type).length > 0 ||
    transformer.getExcludedMetadatas(type).length > 0
  ) {
    return null;
  }
  let template: Record<string, unknown>;
  try {
    template = new (type as new () => Record<string, unknown>)();
  } catch {
    return null;
  }
  if (template.constructor !== type) return null;
  const properties = new Map<string, PropertyPlan>();
  for (const [name, rules] of Object.entries(storage.groupByPropertyName(metadatas))) {
    if (rules.length === 0) continue;
    if (rules.some((rule) => !PLANNED.has(rule.type))) return null;
    // A name the pipe strips, an accessor (a setter may store elsewhere), a method: the pipe's.
    if (STRIPPED.has(name) || hasAccessor(type, name) || template[name] instanceof Function) return null;
    if (transformer.findTransformMetadatas(type, name, TransformationType.PLAIN_TO_CLASS).length > 0) return null;
    const typed = transformer.findTypeMetadata(type, name);
    const nestedRule = rules.find((rule) => rule.type === ValidationTypes.NESTED_VALIDATION);
    let nested: PropertyPlan['nested'];
    if (nestedRule !== undefined) {
      if (typed === undefined || typed.options?.discriminator || template[name] !== undefined) return null;
      if (typed.reflectedType === Map || !madeAsPlainArray(typed.reflectedType)) return null;
      const schema = typeof nestedRule.target === 'string' ? nestedRule.target : nestedRule.target.name;
      nested = { type: typed, schema };
    } else if (typed !== undefined) {
      return null;
    }
    const of = (kind: string) => rules.filter((rule) => rule.type === kind);
    properties.set(name, {
      name,
      conditions: of(ValidationTypes.CONDITIONAL_VALIDATION),
      checks: [...of(ValidationTypes.IS_DEFINED), ...of(ValidationTypes.CUSTOM_VALIDATION)],
      nested,
    });
  }
  for (const key of Object.keys(template)) if (!properties.has(key)) return null;
  return { properties };
}
