import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { toolJsonSchema } from '../src/tools/json-schema.js';
import { schemaPortabilityProblems, SchemaValidator } from '../src/testing/schemas.js';

// Every construct zod spells in a way some client refuses or MCP Inspector warns about.
const awkward = z.object({
  cell: z.union([z.string(), z.number(), z.boolean(), z.null()]),
  maybe: z.string().nullable(),
  details: z.record(z.string(), z.unknown()),
  range: z.tuple([z.number().int(), z.number().int()]),
  open: z.tuple([z.string()]).rest(z.number()),
  anything: z.unknown().optional().describe('Any JSON value.'),
  count: z.number().int().default(3),
});

describe('toolJsonSchema', () => {
  const input = toolJsonSchema(awkward, 'input');
  const output = toolJsonSchema(awkward, 'output');

  it('leaves the dialect to MCP (2020-12) and passes a strict 2020-12 validator and the portability rules', () => {
    expect(input).not.toHaveProperty('$schema');
    expect(output).not.toHaveProperty('$schema');
    expect(schemaPortabilityProblems(input)).toEqual([]);
    expect(schemaPortabilityProblems(output)).toEqual([]);
  });

  it('spells unions and nullables as anyOf, tuples with prefixItems, records without an empty schema', () => {
    const props = input.properties as Record<string, Record<string, unknown>>;
    expect(props.maybe).toEqual({ anyOf: [{ type: 'string' }, { type: 'null' }] });
    expect(props.cell?.anyOf).toHaveLength(4);
    expect(props.details).not.toHaveProperty('additionalProperties');
    expect(props.range).toMatchObject({
      prefixItems: [{ type: 'integer' }, { type: 'integer' }],
      maxItems: 2,
    });
    expect(props.range).not.toHaveProperty('items');
    expect(props.count).toEqual({ default: 3, type: 'integer' });
    expect(JSON.stringify(input)).not.toContain('"type":[');
  });

  it('means what the zod schema means: the same values pass and fail', () => {
    const validator = new SchemaValidator();
    const good = {
      cell: null,
      maybe: 'x',
      details: { a: [1] },
      range: [1, 2],
      open: ['a', 1, 2],
      anything: { x: 1 },
    };
    expect(validator.errors(input, good)).toEqual([]);
    expect(awkward.safeParse(good).success).toBe(true);
    for (const bad of [
      { ...good, cell: [] },
      { ...good, maybe: 1 },
      { ...good, range: [1, 2, 3] },
      { ...good, range: [1.5, 2] },
      { ...good, open: ['a', 'b'] },
    ]) {
      expect(validator.errors(input, bad), JSON.stringify(bad)).not.toEqual([]);
      expect(awkward.safeParse(bad).success, JSON.stringify(bad)).toBe(false);
    }
  });
});

describe('input schemas in tools/list', () => {
  const strict = z
    .object({
      a: z.string(),
      nested: z.object({ b: z.number() }).strict(),
      list: z.array(z.object({}).strict()),
    })
    .strict();

  it('leave out additionalProperties: false, which the server enforces itself', () => {
    const listed = toolJsonSchema(strict, 'input');
    expect(JSON.stringify(listed)).not.toContain('additionalProperties');
    expect(JSON.stringify(z.toJSONSchema(strict, { target: 'draft-2020-12', io: 'input' }))).toContain(
      '"additionalProperties":false',
    );
  });
});

describe('schemaPortabilityProblems', () => {
  it("finds what zod's draft-07 output had: the dialect, type arrays, empty schemas, tuple arrays", () => {
    const draft7 = z.toJSONSchema(awkward, { target: 'draft-7', io: 'input' });
    const problems = schemaPortabilityProblems(draft7).join('\n');
    expect(problems).toContain('$schema is "http://json-schema.org/draft-07/schema#"');
    expect(problems).toContain('type is an array');
    expect(problems).toContain('untyped schema');
    expect(problems).toContain('draft-07 tuple syntax');
  });

  it('finds boolean subschemas and remote references', () => {
    const schema = {
      $schema: 'https://json-schema.org/draft/2020-12/schema',
      type: 'object',
      properties: { a: true, b: { $ref: 'https://example.com/s.json' } },
    };
    const problems = schemaPortabilityProblems(schema).join('\n');
    expect(problems).toContain('#.properties.a: boolean schema true');
    expect(problems).toContain('remote $ref');
  });
});
