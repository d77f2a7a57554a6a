import { readFileSync } from 'node:fs';
import { ValidationPipe, type ArgumentMetadata } from '@nestjs/common';
import { Transform, Type } from 'class-transformer';
import {
  Allow,
  ArrayMaxSize,
  ArrayMinSize,
  ArrayUnique,
  IsArray,
  IsDefined,
  IsIn,
  IsInt,
  IsOptional,
  IsString,
  IsUUID,
  Max,
  MaxLength,
  Min,
  ValidateBy,
  ValidateIf,
  ValidateNested,
} from 'class-validator';
import fc from 'fast-check';
import {
  GenerateBlogAutopilotDto, //
} from '../../../ai/src/functions/generate-blog-autopilot/generate-blog-autopilot.controller.js';
import { GenerateBlogCoverDto } from '../../../ai/src/functions/generate-blog-cover/generate-blog-cover.controller.js';
import { GenerateProductDto } from '../../../ai/src/functions/generate-product/generate-product.controller.js';
import {
  ResearchSocialContextDto, //
} from '../../../ai/src/functions/research-social-context/research-social-context.controller.js';
import {
  SocialGenerateContentDto, //
} from '../../../ai/src/functions/social-generate-content/social-generate-content.controller.js';
import { GrantCreditsDto } from '../../../billing/src/credits.dto.js';
import { CreateApiKeyDto } from '../../../commerce/src/api-keys/api-key.dto.js';
import { CreateCustomerDto, UpdateCustomerDto } from '../../../commerce/src/customers/customer.dto.js';
import { InviteMemberDto, UpdateMemberDto } from '../../../commerce/src/members/member.dto.js';
import { PlaceOrderDto, UpdateOrderDto } from '../../../commerce/src/orders/order.dto.js';
import { AdjustInventoryDto, CreateProductDto, UpdateProductDto } from '../../../commerce/src/products/product.dto.js';
import { UpdateStoreMailSettingsDto } from '../../../commerce/src/stores/store-mail-settings.dto.js';
import { CreateStoreDto, UpdateStoreDto } from '../../../commerce/src/stores/store.dto.js';
import { SocialConnectDto, SocialPublishDto } from '../../../social/src/social.dto.js';
import {
  RecoverDeliveriesDto,
  RegisterWebhookDto,
  UpdateWebhookDto,
} from '../../../webhooks/src/webhooks/webhook.dto.js';
import { STRICT_VALIDATION_OPTIONS } from '../errors/validation.js';
import { CompiledBodies } from './compiled-bodies.js';
import { memoisedValidator } from './memoised-validator.js';

// Test classes: every kind of rule and decorator the plan takes, and the ones it leaves to the pipe.
class Line {
  @IsUUID()
  product_id!: string;

  @IsInt()
  @Min(1)
  @Max(10)
  quantity!: number;
}

class Address {
  @IsString()
  @MaxLength(20)
  city!: string;

  @IsOptional()
  @IsString()
  zip?: string;
}

const lineKey = (line: Line) => line.product_id;

class Order {
  @IsOptional()
  @IsUUID()
  customer_id?: string;

  @IsArray()
  @ArrayMinSize(1)
  @ArrayMaxSize(3)
  @ArrayUnique(lineKey)
  @ValidateNested({ each: true })
  @Type(() => Line)
  items!: Line[];

  @IsOptional()
  @ValidateNested()
  @Type(() => Address)
  ship_to?: Address;

  @IsOptional()
  @IsString({ each: true })
  @MaxLength(5, { each: true })
  tags?: string[];

  @IsIn(['low', 'high'])
  priority: string = 'low';

  @ValidateIf((order: Order) => order.priority === 'high')
  @IsString()
  reason?: string;

  @IsDefined()
  @IsInt({ validateIf: (_order: object, value: unknown) => value !== 'none' })
  count!: number | string;

  @Allow()
  note?: unknown;
}

const validOrder = () => ({
  items: [
    { product_id: '9a1b2c3d-4e5f-4a6b-8c7d-0e1f2a3b4c5d', quantity: 2 },
    { product_id: '3c2b1a09-8f7e-4d6c-9b5a-4e3d2c1b0a98', quantity: 1 },
  ],
  ship_to: { city: 'Lyon' },
  tags: ['a', 'bb'],
  count: 3,
});

class Trimmed {
  @Transform(({ value }) => (typeof value === 'string' ? value.trim() : value))
  @IsString()
  name!: string;
}

class Counted {
  @Type(() => Number)
  @IsInt()
  n!: number;
}

class Slow {
  @ValidateBy({ name: 'later', async: true, validator: { validate: async () => true } })
  value!: string;
}

class WithGetter {
  @IsString()
  name!: string;

  @IsString()
  kind!: string;
}
// class-transformer does not set a key the prototype has a getter (without setter) for.
Object.defineProperty(WithGetter.prototype, 'kind', { get: () => 'fixed' });

class WithSetter {
  private stored?: string;

  @IsString()
  set email(value: string) {
    this.stored = value;
  }

  get email(): string {
    return this.stored ?? '';
  }
}

class NamedPrototype {
  @IsOptional()
  @IsString()
  prototype?: string;

  @IsString()
  name!: string;
}

class SkippedNumber {
  @ValidateIf(() => false)
  @ValidateNested()
  @Type(() => Number)
  n!: number;
}

class Fussy {
  @ValidateBy({
    name: 'fussy',
    validator: {
      validate: () => {
        throw new Error('a validator that throws');
      },
    },
  })
  value!: string;
}

class Holder {
  @ValidateIf(() => false)
  @ValidateNested()
  @Type(() => Fussy)
  inner?: Fussy;
}

const asBody = (metatype: Function): ArgumentMetadata => ({ type: 'body', metatype: metatype as never });

/** Nest's pipe with the strict options and class-validator's own validate: what a body must come out as. */
const reference = new ValidationPipe(STRICT_VALIDATION_OPTIONS);

async function pipeAnswer(metatype: Function, body: unknown): Promise<{ ok: true; dto: unknown } | { ok: false }> {
  try {
    return { ok: true, dto: await reference.transform(structuredClone(body), asBody(metatype)) };
  } catch {
    return { ok: false };
  }
}

/** Each object's class and keys, in order, all the way down: what `toStrictEqual` does not compare. */
function layout(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(layout);
  if (value === null || typeof value !== 'object') return value;
  return [value.constructor?.name, Object.entries(value).map(([key, item]) => [key, layout(item)])];
}

/**
 * The fast path's answer against the pipe's: when it makes a DTO, the pipe makes the same one (same classes, same
 * keys in the same order, same values). Answers whether the fast path made one.
 */
async function sameAsPipe(bodies: CompiledBodies, metatype: Function, body: unknown): Promise<boolean> {
  const fast = bodies.build(metatype, structuredClone(body));
  if (fast === undefined) return false;
  const answer = await pipeAnswer(metatype, body);
  expect(answer.ok).toBe(true);
  if (answer.ok) {
    expect(fast).toStrictEqual(answer.dto);
    expect(layout(fast)).toEqual(layout(answer.dto));
  }
  return true;
}

// Generated bodies: a valid one changed in up to three places (a value replaced by anything JSON can say or by
// another example's value, a key removed, an unknown key added), at any depth.
const leaf = fc.oneof(
  fc.constant(null),
  fc.boolean(),
  fc.integer({ min: -3, max: 1_000_001 }),
  fc.double({ noNaN: true, noDefaultInfinity: true }),
  fc.string({ maxLength: 6 }),
  fc.constantFrom('', ' padded ', 'x'.repeat(300), 'none', 'high', '9a1b2c3d-4e5f-4a6b-8c7d-0e1f2a3b4c5d'),
);
const { json } = fc.letrec((tie) => ({
  json: fc.oneof(
    { depthSize: 'small' },
    leaf,
    fc.array(tie('json'), { maxLength: 3 }),
    fc.dictionary(fc.string({ maxLength: 4 }), tie('json'), { maxKeys: 3 }),
  ),
}));

type Path = (string | number)[];

/** Every place in a JSON value: each key of each object, each item of each array. */
function places(value: unknown, at: Path = []): Path[] {
  if (Array.isArray(value)) return value.flatMap((item, i) => [[...at, i], ...places(item, [...at, i])]);
  if (value === null || typeof value !== 'object') return [];
  return Object.entries(value).flatMap(([key, item]) => [[...at, key], ...places(item, [...at, key])]);
}

function holderOf(body: unknown, path: Path): Record<string | number, unknown> {
  let holder = body as Record<string | number, unknown>;
  for (const step of path.slice(0, -1)) holder = holder[step] as Record<string | number, unknown>;
  return holder;
}

const change = fc.record({
  kind: fc.constantFrom('replace', 'remove', 'add', 'borrow'),
  place: fc.nat(),
  other: fc.nat(),
  key: fc.constantFrom('unknown_field', 'constructor', '__proto__', 'prototype', 'quantity', 'items', 'city'),
  value: json,
});

type Change = typeof change extends fc.Arbitrary<infer T> ? T : never;

function changed(base: unknown, changes: Change[]): unknown {
  const body = structuredClone(base);
  for (const { kind, place, other, key, value } of changes) {
    const all = places(body);
    if (all.length === 0) continue;
    const path = all[place % all.length]!;
    const holder = holderOf(body, path);
    const last = path[path.length - 1]!;
    if (kind === 'replace') holder[last] = structuredClone(value);
    else if (kind === 'remove' && !Array.isArray(holder)) delete holder[last];
    else if (kind === 'borrow') {
      const from = all[other % all.length]!;
      holder[last] = structuredClone(holderOf(body, from)[from.at(-1)!]);
    } else if (kind === 'add') {
      const target = holder[last];
      if (target !== null && typeof target === 'object' && !Array.isArray(target)) {
        // As JSON.parse makes it: an own property, even `__proto__`.
        const field = { value: structuredClone(value), enumerable: true, writable: true, configurable: true };
        Object.defineProperty(target, key, field);
      }
    }
  }
  return body;
}

const bodiesOf = (base: unknown) => fc.array(change, { maxLength: 3 }).map((changes) => changed(base, changes));

describe('CompiledBodies: a JSON body made into its DTO and checked from compiled decorators', () => {
  const bodies = new CompiledBodies(memoisedValidator.getMetadataStorage());

  it('makes a valid body into the pipe’s DTO: nested instances, copied arrays, defaults, key order', async () => {
    const body = validOrder();
    const dto = bodies.build(Order, body) as Order;
    expect(dto).toBeInstanceOf(Order);
    expect(dto.items[0]).toBeInstanceOf(Line);
    expect(dto.ship_to).toBeInstanceOf(Address);
    expect(dto.tags).not.toBe(body.tags);
    expect(dto.priority).toBe('low');
    expect(Object.keys(dto)).toEqual(['priority', 'items', 'ship_to', 'tags', 'count']);
    expect(await sameAsPipe(bodies, Order, body)).toBe(true);
  });

  it('leaves to the pipe every body it is not sure of: unknown keys, failed rules, values it does not make', () => {
    const cases: unknown[] = [
      { ...validOrder(), extra: 1 },
      JSON.parse('{"__proto__": {"x": 1}, "items": [], "count": 1}'),
      { ...validOrder(), items: [] },
      { ...validOrder(), items: [{ product_id: 'nope', quantity: 2 }] },
      { ...validOrder(), items: [{ product_id: '9a1b2c3d-4e5f-4a6b-8c7d-0e1f2a3b4c5d', quantity: 2, price: 1 }] },
      { ...validOrder(), ship_to: 'Lyon' },
      { ...validOrder(), ship_to: { city: 'Lyon', country: 'FR' } },
      { ...validOrder(), tags: [['nested']] },
      { ...validOrder(), tags: ['toolong'] },
      { ...validOrder(), priority: 'high' },
      { ...validOrder(), count: undefined },
      { ...validOrder(), note: { any: 'object' } },
      [validOrder()],
      'text',
    ];
    for (const body of cases) expect(bodies.build(Order, body)).toBeUndefined();
    // Each rule the plan applies: null where @IsOptional, a conditional one met, an option's validateIf, a field
    // with @Allow only.
    expect(bodies.build(Order, { ...validOrder(), ship_to: null })).toMatchObject({ ship_to: null });
    expect(bodies.build(Order, { ...validOrder(), priority: 'high', reason: 'rush' })).toBeInstanceOf(Order);
    expect(bodies.build(Order, { ...validOrder(), count: 'none' })).toBeInstanceOf(Order);
    expect(bodies.build(Order, { ...validOrder(), note: 'kept' })).toMatchObject({ note: 'kept' });
  });

  it('leaves whole classes to the pipe: @Transform, @Type of a plain value, asynchronous rules, getters', async () => {
    expect(bodies.build(Trimmed, { name: 'a' })).toBeUndefined();
    expect(bodies.build(Counted, { n: 1 })).toBeUndefined();
    expect(bodies.build(Slow, { value: 'a' })).toBeUndefined();
    expect(bodies.build(WithGetter, { name: 'a', kind: 'b' })).toBeUndefined();
    // A setter that stores under another key: the pipe refuses that key.
    expect(bodies.build(WithSetter, { email: 'a@example.com' })).toBeUndefined();
    expect(await pipeAnswer(WithSetter, { email: 'a@example.com' })).toEqual({ ok: false });
    // A key the pipe strips before it validates; a nested `@Type` it converts to; a rule that throws where the
    // pipe does not look.
    expect(bodies.build(NamedPrototype, { prototype: 'x', name: 'n' })).toBeUndefined();
    expect(bodies.build(SkippedNumber, { n: '5' })).toBeUndefined();
    expect(bodies.build(Holder, { inner: { value: 'v' } })).toBeUndefined();
    // What the pipe makes of them, for the record: each is valid there.
    for (const [metatype, body] of [
      [Trimmed, { name: ' a ' }],
      [Counted, { n: '1' }],
      [Slow, { value: 'a' }],
      [WithGetter, { name: 'a', kind: 'b' }],
      [NamedPrototype, { prototype: 'x', name: 'n' }],
      [SkippedNumber, { n: '5' }],
      [Holder, { inner: { value: 'v' } }],
    ] as const) {
      expect(await pipeAnswer(metatype, body)).toMatchObject({ ok: true });
    }
    expect(await pipeAnswer(NamedPrototype, { prototype: 'x', name: 'n' })).toEqual({ ok: true, dto: { name: 'n' } });
    expect(await pipeAnswer(SkippedNumber, { n: '5' })).toEqual({ ok: true, dto: { n: 5 } });
  });

  it('on generated bodies of the test classes, every DTO it makes is the pipe’s', async () => {
    let made = 0;
    await fc.assert(
      fc.asyncProperty(bodiesOf(validOrder()), async (body) => {
        if (await sameAsPipe(bodies, Order, body)) made += 1;
      }),
      { numRuns: 1500 },
    );
    // Not only the unchanged body: the generated ones reach the fast path too.
    expect(made).toBeGreaterThan(100);
  });

  // The app's request bodies, from their OpenAPI examples (every property the document gives one).
  const document = JSON.parse(readFileSync(new URL('../../../../sdk/openapi.json', import.meta.url), 'utf8')) as {
    components: { schemas: Record<string, { properties?: Record<string, { example?: unknown }> }> };
  };
  const example = (name: string): Record<string, unknown> =>
    Object.fromEntries(
      Object.entries(document.components.schemas[name]?.properties ?? {})
        .filter(([, property]) => property.example !== undefined)
        .map(([key, property]) => [key, property.example]),
    );
  const appBodies: Record<string, Function> = {
    AdjustInventoryDto,
    CreateApiKeyDto,
    CreateCustomerDto,
    CreateProductDto,
    CreateStoreDto,
    GenerateBlogAutopilotDto,
    GenerateBlogCoverDto,
    GenerateProductDto,
    GrantCreditsDto,
    InviteMemberDto,
    PlaceOrderDto,
    RecoverDeliveriesDto,
    RegisterWebhookDto,
    ResearchSocialContextDto,
    SocialConnectDto,
    SocialGenerateContentDto,
    SocialPublishDto,
    UpdateCustomerDto,
    UpdateMemberDto,
    UpdateOrderDto,
    UpdateProductDto,
    UpdateStoreDto,
    UpdateStoreMailSettingsDto,
    UpdateWebhookDto,
  };

  it.each(Object.keys(appBodies))('%s: every DTO it makes of a generated body is the pipe’s', async (name) => {
    const metatype = appBodies[name]!;
    await fc.assert(
      fc.asyncProperty(bodiesOf(example(name)), async (body) => {
        await sameAsPipe(bodies, metatype, body);
      }),
      { numRuns: 150 },
    );
  });

  it('takes the order body of the write path, and leaves a class with @Transform to the pipe', async () => {
    const order = example('PlaceOrderDto');
    expect(order.items).toEqual([expect.objectContaining({ quantity: 3 })]);
    expect(await sameAsPipe(bodies, PlaceOrderDto, order)).toBe(true);
    expect((await pipeAnswer(CreateStoreDto, example('CreateStoreDto'))).ok).toBe(true);
    expect(bodies.build(CreateStoreDto, example('CreateStoreDto'))).toBeUndefined();
  });
});
