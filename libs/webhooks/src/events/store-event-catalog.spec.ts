import { Ajv } from 'ajv';
import formats from 'ajv-formats';
import { COMMERCE_EVENTS } from '@app/commerce';
import { MAX_SUBSCRIBED_EVENTS } from '../webhooks/webhook-api.constants.js';
import { STORE_EVENT_CATALOG, STORE_EVENT_NAMES, isStoreEventName } from './store-event-catalog.js';
import { STORE_EVENT_ENVELOPE_SCHEMA, storeEventOpenApiSchemas, storeEventSchemaName } from './store-event-openapi.js';

/** Strict: a keyword ajv does not know (a typo such as `nulable`) is an error, not ignored. */
function strictAjv(): Ajv {
  const ajv = new Ajv({ strict: true, allErrors: true });
  // A CommonJS module: its plugin is the default export's `default` under Node's ES module loader.
  formats.default(ajv);
  return ajv;
}

describe('the store event catalog', () => {
  it('has events, each named context.happening', () => {
    expect(STORE_EVENT_NAMES.length).toBeGreaterThan(0);
    for (const name of STORE_EVENT_NAMES) expect(name).toMatch(/^[a-z]+(_[a-z]+)*\.[a-z]+(_[a-z]+)*$/);
    expect(new Set(STORE_EVENT_NAMES).size).toBe(STORE_EVENT_NAMES.length);
  });

  it('every catalog event has a description, a schema and an example that validates', () => {
    const ajv = strictAjv();
    for (const name of STORE_EVENT_NAMES) {
      const { description, schema, example } = STORE_EVENT_CATALOG[name];
      expect(description.length, name).toBeGreaterThan(10);
      const validate = ajv.compile(schema);
      expect(validate(example), `${name}: ${ajv.errorsText(validate.errors)}`).toBe(true);
    }
  });

  it(
    'every schema refuses its example without a required ' +
      "field, with a field too many, or with a field's type wrong",
    () => {
      const ajv = strictAjv();
      for (const name of STORE_EVENT_NAMES) {
        const { schema, example } = STORE_EVENT_CATALOG[name];
        const validate = ajv.compile(schema);
        const data = example as unknown as Record<string, unknown>;
        expect(schema.required, name).toEqual(Object.keys(schema.properties));
        for (const field of schema.required) {
          const { [field]: _dropped, ...without } = data;
          expect(validate(without), `${name} without ${field}`).toBe(false);
          // No field of any event is an object where the example has a string, or the other way round.
          expect(
            validate({ ...data, [field]: typeof data[field] === 'string' ? { text: data[field] } : 'text' }),
            `${name}.${field}`,
          ).toBe(false);
        }
        expect(validate({ ...data, unexpected: true }), `${name} with an unknown field`).toBe(false);
      }
    },
  );

  it("holds each context's events, and only those", () => {
    expect(Object.keys(STORE_EVENT_CATALOG).sort()).toEqual(Object.keys(COMMERCE_EVENTS).sort());
    expect(isStoreEventName('order.paid')).toBe(true);
    expect(isStoreEventName('order.payed')).toBe(false);
    expect(isStoreEventName('toString')).toBe(false);
  });

  it('a webhook may subscribe to every event of the catalog, and no more', () => {
    expect(MAX_SUBSCRIBED_EVENTS).toBe(STORE_EVENT_NAMES.length);
  });
});

describe('the store events in the OpenAPI document', () => {
  const schemas = storeEventOpenApiSchemas();

  it('one component schema per event, named after it, and one for any of them', () => {
    const names = [...STORE_EVENT_NAMES.map(storeEventSchemaName), STORE_EVENT_ENVELOPE_SCHEMA];
    expect(Object.keys(schemas).sort()).toEqual(names.sort());
    expect(storeEventSchemaName('order.paid')).toBe('OrderPaidEvent');
    expect(storeEventSchemaName('inventory.out_of_stock')).toBe('InventoryOutOfStockEvent');
  });

  it("each is the envelope, whose example validates and whose data is the catalog's schema", () => {
    const ajv = strictAjv();
    ajv.addKeyword('example');
    for (const name of STORE_EVENT_NAMES) {
      const schema = schemas[storeEventSchemaName(name)] as {
        example: { event: string; data: unknown };
        properties: { data: unknown };
      };
      expect(schema.properties.data).toBe(STORE_EVENT_CATALOG[name].schema);
      expect(schema.example.event).toBe(name);
      expect(schema.example.data).toEqual(STORE_EVENT_CATALOG[name].example);
      const validate = ajv.compile(schema);
      expect(validate(schema.example), `${name}: ${ajv.errorsText(validate.errors)}`).toBe(true);
      expect(validate({ ...schema.example, event: name === 'order.paid' ? 'order.created' : 'order.paid' }), name).toBe(
        false,
      );
    }
  });

  it('any envelope is one of the event schemas, told apart by `event`', () => {
    type AnyOf = { oneOf: { $ref: string }[]; discriminator: { mapping: Record<string, string> } };
    const any = schemas[STORE_EVENT_ENVELOPE_SCHEMA] as AnyOf;
    const refs = STORE_EVENT_NAMES.map((name) => `#/components/schemas/${storeEventSchemaName(name)}`);
    expect(any.oneOf.map((item) => item.$ref)).toEqual(refs);
    expect(Object.entries(any.discriminator.mapping)).toEqual(STORE_EVENT_NAMES.map((name, i) => [name, refs[i]]));
  });
});
