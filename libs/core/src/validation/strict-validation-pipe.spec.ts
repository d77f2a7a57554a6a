import type { ArgumentMetadata } from '@nestjs/common';
import { Transform, Type } from 'class-transformer';
import { IsIn, IsInt, IsOptional, IsString, Max, Min } from 'class-validator';
import { ApiError } from '../errors/api-error.js';
import { STRICT_VALIDATION_OPTIONS, strictValidationPipe } from '../errors/validation.js';
import { MAX_QUERY_KEY_LENGTH, QUERY_CACHE_SIZE, StrictValidationPipe } from './strict-validation-pipe.js';

class PageQuery {
  @IsOptional()
  @Type(() => Number)
  @IsInt()
  @Min(1)
  @Max(100)
  limit: number = 20;

  @IsOptional()
  @IsIn(['active', 'draft'])
  status?: string;

  @IsOptional()
  @IsString()
  cursor?: string;
}

class Item {
  @IsString()
  name!: string;

  @IsInt()
  @Min(1)
  quantity!: number;
}

class TagsQuery {
  @IsOptional()
  @Transform(({ value }) => (typeof value === 'string' ? value.split(',') : value))
  @IsString({ each: true })
  tags?: string[];
}

const asQuery = (metatype: Function, data?: string): ArgumentMetadata => ({
  type: 'query',
  metatype: metatype as never,
  data,
});
/** A query as Fastify's parser makes it: no prototype, string values. */
const query = (fields: Record<string, unknown>) => Object.assign(Object.create(null) as object, fields);

describe('StrictValidationPipe', () => {
  let pipe: StrictValidationPipe;
  let validations: ReturnType<typeof vi.fn>;
  beforeEach(() => {
    pipe = strictValidationPipe();
    const validate = (pipe as unknown as { validate: (...args: unknown[]) => unknown }).validate.bind(pipe);
    validations = vi.fn(validate);
    (pipe as unknown as { validate: unknown }).validate = validations;
  });

  it('validates a query once, and hands every request its own copy of the DTO', async () => {
    const dtos: PageQuery[] = [];
    for (let i = 0; i < 3; i++) {
      const dto = (await pipe.transform(query({ limit: '5', status: 'active' }), asQuery(PageQuery))) as PageQuery;
      expect(dto).toBeInstanceOf(PageQuery);
      expect(Object.entries(dto)).toEqual([
        ['limit', 5],
        ['status', 'active'],
      ]);
      dto.limit = 99; // the handler's to change
      dtos.push(dto);
    }
    expect(new Set(dtos).size).toBe(3);
    expect(validations).toHaveBeenCalledTimes(1);
  });

  it('keeps queries apart by their fields, values and order', async () => {
    const keys = async (fields: Record<string, string>) =>
      Object.entries((await pipe.transform(query(fields), asQuery(PageQuery))) as object);
    expect(await keys({ status: 'draft', cursor: 'c' })).toEqual([
      ['limit', 20],
      ['status', 'draft'],
      ['cursor', 'c'],
    ]);
    expect(await keys({ cursor: 'c', status: 'draft' })).toEqual([
      ['limit', 20],
      ['cursor', 'c'],
      ['status', 'draft'],
    ]);
    expect(await keys({ cursor: 'd', status: 'draft' })).toEqual([
      ['limit', 20],
      ['cursor', 'd'],
      ['status', 'draft'],
    ]);
    expect(validations).toHaveBeenCalledTimes(3);
  });

  it('validates an invalid query every time, with the same errors', async () => {
    const refusal = async () =>
      pipe.transform(query({ limit: '0', sort: 'x' }), asQuery(PageQuery)).catch((error: unknown) => error);
    const [first, second] = [await refusal(), await refusal()];
    expect(first).toBeInstanceOf(ApiError);
    expect((second as ApiError).details).toEqual((first as ApiError).details);
    expect((first as ApiError).details).toEqual([
      { field: 'sort', message: 'is not a known field' },
      { field: 'limit', message: 'limit must not be less than 1' },
    ]);
    expect(validations).toHaveBeenCalledTimes(2);
  });

  it.each([
    ['a repeated parameter (an array)', () => query({ status: ['active', 'draft'] }), asQuery(PageQuery)],
    ['a key the pipe strips', () => query({ constructor: 'x', limit: '5' }), asQuery(PageQuery)],
    ['an object of another class', () => Object.assign(new (class Q {})(), { limit: '5' }), asQuery(PageQuery)],
    ['a query too long to keep', () => query({ cursor: 'c'.repeat(MAX_QUERY_KEY_LENGTH) }), asQuery(PageQuery)],
    ['a DTO holding an object', () => query({ tags: 'a,b' }), asQuery(TagsQuery)],
    ['a body', () => ({ limit: 5 }), { type: 'body', metatype: PageQuery } as ArgumentMetadata],
  ])('leaves %s to the pipe every time', async (_, value, metadata) => {
    const answer = async () => {
      try {
        return await pipe.transform(value(), metadata);
      } catch (error) {
        return error;
      }
    };
    expect(await answer()).toEqual(await answer());
    expect(validations).toHaveBeenCalledTimes(2);
  });

  it('a single query parameter is converted as before, without validation', async () => {
    expect(await pipe.transform('7', asQuery(Number, 'limit'))).toBe(7);
    expect(validations).not.toHaveBeenCalled();
  });

  it(`keeps at most ${QUERY_CACHE_SIZE} queries per DTO class`, async () => {
    for (let i = 0; i < QUERY_CACHE_SIZE + 10; i++)
      await pipe.transform(query({ cursor: `c${i}` }), asQuery(PageQuery));
    const kept = (pipe as unknown as { queries: Map<Function, { size: number }> }).queries.get(PageQuery)!;
    expect(kept.size).toBe(QUERY_CACHE_SIZE);
  });

  it('makes a valid body from compiled rules only with the options those rules mirror', async () => {
    const body = () => ({ name: 'tote', quantity: 2 });
    const asBody: ArgumentMetadata = { type: 'body', metatype: Item as never };
    // The strict options: the DTO instance, without class-validator being asked.
    const made = await pipe.transform(body(), asBody);
    expect(made).toBeInstanceOf(Item);
    expect(validations).not.toHaveBeenCalled();
    // The plain value answered (transform off) or a rule skipped for missing values: the pipe's own answer.
    const plain = new StrictValidationPipe({ ...STRICT_VALIDATION_OPTIONS, transform: false });
    const answered = await plain.transform(body(), asBody);
    expect(answered).not.toBeInstanceOf(Item);
    expect(answered).toEqual(body());
    const lenient = new StrictValidationPipe({ ...STRICT_VALIDATION_OPTIONS, skipMissingProperties: true });
    expect(await lenient.transform({ quantity: 2 }, asBody)).toMatchObject({ quantity: 2 });
    await expect(pipe.transform({ quantity: 2 }, asBody)).rejects.toBeInstanceOf(ApiError);
  });
});
