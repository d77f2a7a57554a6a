import { Type } from 'class-transformer';
import {
  getMetadataStorage,
  IsIn,
  IsInt,
  IsOptional,
  IsString,
  Max,
  Min,
  validate,
  ValidateNested,
  type ValidatorOptions,
} from 'class-validator';
import { MemoisedMetadataStorage, validateMemoised } from './memoised-validator.js';

const OPTIONS: ValidatorOptions = {
  whitelist: true,
  forbidNonWhitelisted: true,
  forbidUnknownValues: false,
  validationError: { target: false, value: false },
};

class Line {
  @IsString()
  sku: string;

  @IsInt()
  @Min(1)
  quantity: number;
}

class Base {
  @IsOptional()
  @IsInt()
  @Max(100)
  limit?: number;

  @IsString()
  name: string;
}

class Order extends Base {
  // Overrides Base's rule of the same kind: class-validator keeps the subclass's.
  @IsString()
  @IsIn(['a', 'b'])
  declare name: string;

  @ValidateNested({ each: true })
  @Type(() => Line)
  lines: Line[];
}

const order = (fields: Record<string, unknown>) =>
  Object.assign(new Order(), fields, {
    lines: ((fields.lines ?? []) as Record<string, unknown>[]).map((line) => Object.assign(new Line(), line)),
  });

describe('validateMemoised', () => {
  it.each([
    { fields: { name: 'a', lines: [{ sku: 'x', quantity: 1 }] }, valid: true },
    { fields: { name: 'c', limit: 101, lines: [{ sku: 1, quantity: 0 }, { sku: 'y' }] }, valid: false },
    { fields: { name: 7, extra: true, lines: [{ quantity: 2, other: 1 }] }, valid: false },
  ])('answers as class-validator’s validate, errors in the same order: %j', async ({ fields, valid }) => {
    const expected = await validate(order(fields), OPTIONS);
    expect(expected.length === 0).toBe(valid);
    expect(await validateMemoised(order(fields), OPTIONS)).toEqual(expected);
    expect(await validateMemoised(order(fields), OPTIONS)).toEqual(expected);
  });
});

describe('MemoisedMetadataStorage', () => {
  const storage = getMetadataStorage();
  const lookUp = (memo: MemoisedMetadataStorage, target: Function, groups?: string[]) =>
    memo.getTargetValidationMetadatas(target, undefined as unknown as string, false, false, groups);

  afterEach(() => vi.restoreAllMocks());

  it('asks the storage once per class, and gives its answer and grouping', () => {
    const memo = new MemoisedMetadataStorage(storage);
    const asked = vi.spyOn(storage, 'getTargetValidationMetadatas');
    const first = lookUp(memo, Order);
    expect(lookUp(memo, Order)).toBe(first);
    expect(asked).toHaveBeenCalledTimes(1);
    expect(first).toEqual(storage.getTargetValidationMetadatas(Order, undefined as unknown as string, false, false));
    expect(memo.groupByPropertyName(first)).toEqual(storage.groupByPropertyName(first));
    expect(memo.groupByPropertyName(first)).toBe(memo.groupByPropertyName(first));
  });

  it('does not keep a lookup with validation groups', () => {
    const memo = new MemoisedMetadataStorage(storage);
    const asked = vi.spyOn(storage, 'getTargetValidationMetadatas');
    lookUp(memo, Order, ['admin']);
    lookUp(memo, Order, ['admin']);
    expect(asked).toHaveBeenCalledTimes(2);
  });

  it('sees a rule added after the lookup, on the class or on a class it extends', async () => {
    class Parent {
      @IsString()
      code: string;
    }
    class Child extends Parent {
      @IsOptional()
      @IsString()
      note?: string;
    }
    const child = () => Object.assign(new Child(), { code: 'abc', note: 'n' });
    expect(await validateMemoised(child(), OPTIONS)).toEqual([]);

    Min(5)(Parent.prototype, 'code'); // on the parent: the child's lookup read the parent's list
    const errors = await validateMemoised(child(), OPTIONS);
    expect(errors).toEqual(await validate(child(), OPTIONS));
    expect(errors.map((error) => Object.keys(error.constraints ?? {}))).toEqual([['min']]);

    IsInt()(Child.prototype, 'note'); // on the class itself
    expect(await validateMemoised(child(), OPTIONS)).toEqual(await validate(child(), OPTIONS));
    expect((await validateMemoised(child(), OPTIONS)).map((error) => error.property)).toEqual(['note', 'code']);
  });
});
