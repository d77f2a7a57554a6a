import { Ajv, type ValidateFunction } from 'ajv';

/**
 * Building blocks of the JSON schemas the text functions ask an OpenAI-compatible model to answer
 * (each function declares its own in its task file), sent in `response_format` (structured outputs,
 * strict mode) and checked again on our side with ajv before an answer is used.
 *
 * Strict mode wants every property listed in `required` and `additionalProperties: false` on every
 * object. It supports `pattern`, number bounds and `minItems`/`maxItems`, but not `minLength` or
 * `maxLength` (OpenAI rejects a schema that has them), so `wireSchema` strips those two and leaves
 * the limit in the property's `description`; our own validation keeps them.
 */

/** A JSON schema object, as plain data. */
export type JsonSchema = { [keyword: string]: unknown };

/** An answer's schema: its `response_format.json_schema.name`, the schema, and its compiled check. */
export interface StructuredOutput<T> {
  readonly name: string;
  readonly schema: JsonSchema;
  readonly validate: ValidateFunction<T>;
}

// One ajv for every schema. `strict` makes a typo in a schema an error when its task's module loads, at start-up.
const ajv = new Ajv({ strict: true, allErrors: false });

/** A named answer schema, compiled once. */
export function structuredOutput<T>(name: string, schema: JsonSchema): StructuredOutput<T> {
  return { name, schema, validate: ajv.compile<T>(schema) };
}

export const text = (description: string, maxLength?: number): JsonSchema => ({
  type: 'string',
  minLength: 1,
  ...(maxLength === undefined ? {} : { maxLength }),
  description: maxLength === undefined ? description : `${description} At most ${maxLength} characters.`,
});

export const list = (items: JsonSchema, minItems: number, maxItems: number, description: string): JsonSchema => ({
  type: 'array',
  items,
  minItems,
  maxItems,
  description: `${description} ${minItems === maxItems ? minItems : `${minItems} to ${maxItems}`} items.`,
});

export const hashtag: JsonSchema = {
  type: 'string',
  pattern: '^#\\S+$',
  description: 'A hashtag: "#" then the tag, no spaces.',
};

export const object = (properties: Record<string, JsonSchema>): JsonSchema => ({
  type: 'object',
  properties,
  required: Object.keys(properties),
  additionalProperties: false,
});

export const price = (description: string): JsonSchema => ({ type: 'number', exclusiveMinimum: 0, description });

/** Keywords strict mode rejects; our validation still applies them. */
const NOT_SENT = new Set(['minLength', 'maxLength']);

/** The schema as sent to the model: the same, less the keywords strict mode does not accept. */
export function wireSchema(schema: JsonSchema): JsonSchema {
  const strip = (value: unknown): unknown => {
    if (Array.isArray(value)) return value.map(strip);
    if (value === null || typeof value !== 'object') return value;
    return Object.fromEntries(
      Object.entries(value)
        .filter(([key]) => !NOT_SENT.has(key))
        .map(([key, inner]) => [key, strip(inner)]),
    );
  };
  return strip(schema) as JsonSchema;
}
