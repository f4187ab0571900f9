import { describe, expect, it } from 'vitest';
import { mapJsonSchema } from '../../../core/providers/gemini/map-json-schema.ts';

describe('mapJsonSchema: OpenAI tool parameters to the Schema subset Gemini accepts', () => {
  const cases: { name: string; input: unknown; expected: unknown }[] = [
    {
      name: 'drops $schema and additionalProperties, upper-cases types',
      input: {
        $schema: 'http://json-schema.org/draft-07/schema#',
        type: 'object',
        properties: { city: { type: 'string', description: 'City name' }, days: { type: 'integer', minimum: 1, maximum: 7 } },
        required: ['city'],
        additionalProperties: false,
      },
      expected: {
        type: 'OBJECT',
        properties: { city: { type: 'STRING', description: 'City name' }, days: { type: 'INTEGER', minimum: 1, maximum: 7 } },
        required: ['city'],
      },
    },
    {
      name: 'inlines $ref from $defs and definitions',
      input: {
        type: 'object',
        properties: { from: { $ref: '#/$defs/Place' }, to: { $ref: '#/definitions/Place', description: 'Destination' } },
        required: ['from', 'to'],
        $defs: { Place: { type: 'object', properties: { name: { type: 'string' } }, required: ['name'], additionalProperties: false } },
        definitions: { Place: { type: 'object', properties: { name: { type: 'string' } } } },
      },
      expected: {
        type: 'OBJECT',
        properties: {
          from: { type: 'OBJECT', properties: { name: { type: 'STRING' } }, required: ['name'] },
          to: { type: 'OBJECT', description: 'Destination', properties: { name: { type: 'STRING' } } },
        },
        required: ['from', 'to'],
      },
    },
    {
      name: 'a recursive reference becomes a free-form object instead of looping',
      input: {
        type: 'object',
        properties: { tree: { $ref: '#/$defs/Node' } },
        $defs: { Node: { type: 'object', properties: { label: { type: 'string' }, children: { type: 'array', items: { $ref: '#/$defs/Node' } } } } },
      },
      expected: {
        type: 'OBJECT',
        properties: {
          tree: { type: 'OBJECT', properties: { label: { type: 'STRING' }, children: { type: 'ARRAY', items: { type: 'OBJECT' } } } },
        },
      },
    },
    {
      name: 'keeps the formats Gemini accepts and moves the others into the description',
      input: {
        type: 'object',
        properties: {
          when: { type: 'string', format: 'date-time' },
          email: { type: 'string', format: 'email', description: 'Contact' },
          site: { type: 'string', format: 'uri' },
          big: { type: 'integer', format: 'int64' },
          ratio: { type: 'number', format: 'percent' },
        },
      },
      expected: {
        type: 'OBJECT',
        properties: {
          when: { type: 'STRING', format: 'date-time' },
          email: { type: 'STRING', description: 'Contact (format: email)' },
          site: { type: 'STRING', description: '(format: uri)' },
          big: { type: 'INTEGER', format: 'int64' },
          ratio: { type: 'NUMBER', description: '(format: percent)' },
        },
      },
    },
    {
      name: 'type arrays and anyOf with null become nullable; several types become anyOf',
      input: {
        type: 'object',
        properties: {
          a: { type: ['string', 'null'] },
          b: { anyOf: [{ type: 'integer' }, { type: 'null' }], description: 'Count' },
          c: { type: ['string', 'number'] },
          d: { oneOf: [{ type: 'string' }, { type: 'boolean' }] },
        },
      },
      expected: {
        type: 'OBJECT',
        properties: {
          a: { type: 'STRING', nullable: true },
          b: { type: 'INTEGER', description: 'Count', nullable: true },
          c: { anyOf: [{ type: 'STRING' }, { type: 'NUMBER' }] },
          d: { anyOf: [{ type: 'STRING' }, { type: 'BOOLEAN' }] },
        },
      },
    },
    {
      name: 'string enums and const stay; other enums become a description note',
      input: {
        type: 'object',
        properties: {
          unit: { type: 'string', enum: ['celsius', 'fahrenheit'] },
          kind: { const: 'weather' },
          level: { type: 'integer', enum: [1, 2, 3] },
          mode: { enum: ['a', 'b', null] },
        },
      },
      expected: {
        type: 'OBJECT',
        properties: {
          unit: { type: 'STRING', enum: ['celsius', 'fahrenheit'] },
          kind: { type: 'STRING', enum: ['weather'] },
          level: { type: 'INTEGER', description: '(allowed values: 1, 2, 3)' },
          mode: { type: 'STRING', enum: ['a', 'b'], nullable: true },
        },
      },
    },
    {
      name: 'a nested free-form object stays an OBJECT so required still names it',
      input: { type: 'object', properties: { options: { type: 'object', additionalProperties: true } }, required: ['options'] },
      expected: { type: 'OBJECT', properties: { options: { type: 'OBJECT' } }, required: ['options'] },
    },
    {
      name: 'required names without a property are dropped (Gemini: property is not defined)',
      input: { type: 'object', properties: { a: { type: 'string' } }, required: ['a', 'ghost'] },
      expected: { type: 'OBJECT', properties: { a: { type: 'STRING' } }, required: ['a'] },
    },
    {
      name: 'arrays get items (untyped lists become lists of strings); counts travel as strings',
      input: {
        type: 'object',
        properties: { tags: { type: 'array', minItems: 1, maxItems: 5 }, name: { type: 'string', minLength: 2, maxLength: 40, pattern: '^[a-z]+$' } },
      },
      expected: {
        type: 'OBJECT',
        properties: {
          tags: { type: 'ARRAY', items: { type: 'STRING' }, minItems: '1', maxItems: '5' },
          name: { type: 'STRING', minLength: '2', maxLength: '40', pattern: '^[a-z]+$' },
        },
      },
    },
    {
      name: 'allOf is merged into one object; default becomes a note',
      input: {
        type: 'object',
        properties: {
          item: {
            allOf: [{ type: 'object', properties: { id: { type: 'string' } }, required: ['id'] }, { properties: { qty: { type: 'integer', default: 1 } } }],
          },
        },
      },
      expected: {
        type: 'OBJECT',
        properties: { item: { type: 'OBJECT', properties: { id: { type: 'STRING' }, qty: { type: 'INTEGER', description: '(default: 1)' } }, required: ['id'] } },
      },
    },
    {
      name: 'a root union of objects (zod discriminated union) becomes one object',
      input: {
        anyOf: [
          { type: 'object', properties: { kind: { const: 'a' }, x: { type: 'number' } }, required: ['kind', 'x'] },
          { type: 'object', properties: { kind: { const: 'b' }, y: { type: 'number' } }, required: ['kind'] },
        ],
      },
      expected: { type: 'OBJECT', properties: { kind: { type: 'STRING', enum: ['a', 'b'] }, x: { type: 'NUMBER' }, y: { type: 'NUMBER' } }, required: ['kind'] },
    },
    {
      name: 'a root $ref is followed',
      input: { $ref: '#/$defs/Args', $defs: { Args: { type: 'object', properties: { q: { type: 'string' } } } } },
      expected: { type: 'OBJECT', properties: { q: { type: 'STRING' } } },
    },
    { name: 'an empty root object means no parameters', input: { type: 'object', properties: {}, additionalProperties: false }, expected: undefined },
    { name: 'a root without properties means no parameters', input: { type: 'object' }, expected: undefined },
    { name: 'no schema means no parameters', input: undefined, expected: undefined },
  ];

  it.each(cases)('$name', ({ input, expected }) => {
    expect(mapJsonSchema(input)).toEqual(expected);
  });

  it('never mutates the caller’s schema', () => {
    const input = {
      $schema: 'x',
      type: 'object',
      properties: { a: { $ref: '#/$defs/A' }, b: { type: ['string', 'null'], format: 'email' } },
      $defs: { A: { type: 'object', properties: { n: { type: 'number' } }, additionalProperties: false } },
      additionalProperties: false,
    };
    const before = structuredClone(input);
    mapJsonSchema(input);
    expect(input).toEqual(before);
  });
});
