import { getMetadataStorage, Validator, type MetadataStorage, type ValidationError } from 'class-validator';
import type { ValidatorOptions } from 'class-validator';
import { ValidationExecutor } from 'class-validator/cjs/validation/ValidationExecutor.js';

type Metadata = ReturnType<MetadataStorage['getTargetValidationMetadatas']>[number];
type Grouped = ReturnType<MetadataStorage['groupByPropertyName']>;

/** One class's rules as class-validator's storage gave them, and what they were read from. */
interface Lookup {
  metadatas: Metadata[];
  grouped: Grouped;
  /** How many classes the storage held, and each list read with its length then: the lookup is stale once one grew. */
  classes: number;
  sources: [list: Metadata[], length: number][];
}

/**
 * class-validator's metadata storage with each class's rules looked up once. The storage filters every
 * registered class (inheritance, groups) and regroups the rules by property on each validate call, though
 * they never change after the decorators ran: under load that was class-validator's largest function
 * (`getTargetValidationMetadatas`, about a third of its time).
 *
 * A lookup is the storage's own answer, kept with the lists it came from; it is used again only while the
 * storage holds as many classes and each of those lists as many rules, so a decorator that runs later (a
 * class loaded late) is seen as before. Calls with validation groups, which the API does not use, are not
 * kept. The lists are shared between calls: class-validator's executor and Nest's pipe only read them (frozen,
 * they slowed the executor down: a body's validation took 15 % longer).
 */
export class MemoisedMetadataStorage {
  private readonly lookups = new WeakMap<object, Map<string, Lookup>>();
  private readonly groupings = new WeakMap<Metadata[], Grouped>();
  /** The storage's registry: class (or schema name) → its own rules, appended to, never removed from. */
  private readonly registry: Map<unknown, Metadata[]> | undefined;

  constructor(private readonly storage: MetadataStorage = getMetadataStorage()) {
    const registry = (storage as unknown as { validationMetadatas?: unknown }).validationMetadatas;
    // A storage of another shape (a class-validator release that renamed it) is asked every time.
    this.registry = registry instanceof Map ? (registry as Map<unknown, Metadata[]>) : undefined;
  }

  get hasValidationMetaData(): boolean {
    return this.storage.hasValidationMetaData;
  }

  getTargetValidatorConstraints(target: Function): ReturnType<MetadataStorage['getTargetValidatorConstraints']> {
    return this.storage.getTargetValidatorConstraints(target);
  }

  groupByPropertyName(metadatas: Metadata[]): Grouped {
    return this.groupings.get(metadatas) ?? this.storage.groupByPropertyName(metadatas);
  }

  getTargetValidationMetadatas(
    target: Function,
    schema: string,
    always: boolean,
    strictGroups: boolean,
    groups?: string[],
  ): Metadata[] {
    if (this.registry === undefined || (groups !== undefined && groups.length > 0))
      return this.storage.getTargetValidationMetadatas(target, schema, always, strictGroups, groups);
    const key = `${always ? 1 : 0}${strictGroups ? 1 : 0}${schema ?? ''}`;
    let byKey = this.lookups.get(target);
    const known = byKey?.get(key);
    if (known !== undefined && this.current(known)) return known.metadatas;
    const lookup = this.lookUp(target, schema, always, strictGroups);
    if (byKey === undefined) this.lookups.set(target, (byKey = new Map()));
    byKey.set(key, lookup);
    this.groupings.set(lookup.metadatas, lookup.grouped);
    return lookup.metadatas;
  }

  private lookUp(target: Function, schema: string, always: boolean, strictGroups: boolean): Lookup {
    const registry = this.registry!;
    // The lists the storage reads for this class: its own and those of the classes it extends.
    const sources: Lookup['sources'] = [];
    for (const [owner, list] of registry) {
      if (owner === target || (typeof owner === 'function' && target.prototype instanceof owner))
        sources.push([list, list.length]);
    }
    const metadatas = this.storage.getTargetValidationMetadatas(target, schema, always, strictGroups, undefined);
    return { metadatas, grouped: this.storage.groupByPropertyName(metadatas), classes: registry.size, sources };
  }

  private current(lookup: Lookup): boolean {
    if (this.registry!.size !== lookup.classes) return false;
    for (const [list, length] of lookup.sources) if (list.length !== length) return false;
    return true;
  }
}

const storage = new MemoisedMetadataStorage();
const validator = new Validator();

/**
 * class-validator's `validate()` (its `Validator.coreValidate`, step for step) on the memoised storage: the
 * same executor, so the same errors in the same order.
 */
export function validateMemoised(object: object, options?: ValidatorOptions): Promise<ValidationError[]> {
  const executor = new ValidationExecutor(validator, options);
  (executor as unknown as { metadataStorage: unknown }).metadataStorage = storage;
  const errors: ValidationError[] = [];
  executor.execute(object, undefined as unknown as string, errors);
  return Promise.all(executor.awaitingPromises).then(() => executor.stripEmptyErrors(errors));
}

/**
 * The validator package handed to Nest's ValidationPipe: `validate` as above, and the storage its own lookups
 * (the nested binary value check) read.
 */
export const memoisedValidator = {
  validate: validateMemoised,
  getMetadataStorage: (): MemoisedMetadataStorage => storage,
};
