import { z } from 'zod';
import type { AnyTool } from './define-tool.js';

/**
 * The dialect of every schema: JSON Schema 2020-12, which MCP (2025-11-25, SEP-1613) assumes when a schema
 * has no `$schema`, so tools/list does not spend tokens declaring it.
 */
export const JSON_SCHEMA_DIALECT = 'https://json-schema.org/draft/2020-12/schema';

type Schema = Record<string, unknown>;

const JSON_TYPES = ['object', 'array', 'string', 'number', 'boolean', 'null'] as const;

/** Keywords whose value is one subschema, an array of them, or a map of them (2020-12). */
export const ONE = [
  'items',
  'contains',
  'not',
  'propertyNames',
  'if',
  'then',
  'else',
  'additionalProperties',
];
export const MANY = ['allOf', 'anyOf', 'oneOf', 'prefixItems'];
export const MAP = ['properties', 'patternProperties', 'dependentSchemas', '$defs'];

/** Keywords that constrain a value; a schema with none of them accepts anything. */
export const CONSTRAINING = new Set([
  'type',
  'enum',
  'const',
  'anyOf',
  'allOf',
  'oneOf',
  'not',
  '$ref',
  'properties',
  'items',
  'prefixItems',
  'additionalProperties',
  'propertyNames',
  'patternProperties',
  'required',
  'minimum',
  'maximum',
  'exclusiveMinimum',
  'exclusiveMaximum',
  'multipleOf',
  'minLength',
  'maxLength',
  'pattern',
  'format',
  'minItems',
  'maxItems',
  'uniqueItems',
  'contains',
  'minProperties',
  'maxProperties',
]);

export function isSchema(value: unknown): value is Schema {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * Rewrites one node (children first) into the spelling every client accepts:
 * - `type: [a, b]` (zod's form for unions of primitives and nullables) → `anyOf` of single types;
 * - `additionalProperties: {}` (zod's record of unknown) → dropped, which means the same;
 * - an untyped `{}` (z.unknown()) → `anyOf` of the six JSON types, which means the same;
 * - `items: false` after `prefixItems` (a closed tuple) → dropped when `maxItems` already closes it,
 *   else `{not: {}}`;
 * - the ±(2^53−1) bounds zod puts on every integer → dropped (they only cost tokens).
 */
function portable(node: Schema, key?: string): Schema {
  if (isSchema(node.additionalProperties) && Object.keys(node.additionalProperties).length === 0) {
    delete node.additionalProperties;
  }
  for (const keyword of ONE) {
    const child = node[keyword];
    if (isSchema(child)) node[keyword] = portable(child, keyword);
  }
  for (const keyword of MANY) {
    const list = node[keyword];
    if (Array.isArray(list)) {
      node[keyword] = (list as unknown[]).map((child) => (isSchema(child) ? portable(child) : child));
    }
  }
  for (const keyword of MAP) {
    const map = node[keyword];
    if (!isSchema(map)) continue;
    for (const [name, child] of Object.entries(map)) if (isSchema(child)) map[name] = portable(child);
  }

  if (Array.isArray(node.type)) {
    const types = node.type as string[];
    delete node.type;
    const branches = types.map((type) => ({ type }));
    node.anyOf = Array.isArray(node.anyOf) ? [...(node.anyOf as Schema[]), ...branches] : branches;
  }
  if (node.items === false && Array.isArray(node.prefixItems)) {
    if (node.maxItems === node.prefixItems.length) delete node.items;
    else node.items = { not: {} };
  }
  if (node.type === 'integer') {
    if (node.minimum === Number.MIN_SAFE_INTEGER) delete node.minimum;
    if (node.maximum === Number.MAX_SAFE_INTEGER) delete node.maximum;
  }
  if (key !== 'not' && !Object.keys(node).some((keyword) => CONSTRAINING.has(keyword))) {
    node.anyOf = JSON_TYPES.map((type) => ({ type }));
  }
  return node;
}

/** Drops `additionalProperties: false` everywhere: the server validates arguments itself (strictly). */
function withoutClosedObjects(node: Schema): Schema {
  if (node.additionalProperties === false) delete node.additionalProperties;
  for (const keyword of ONE) if (isSchema(node[keyword])) withoutClosedObjects(node[keyword]);
  for (const keyword of MANY) {
    const list = node[keyword];
    if (Array.isArray(list))
      for (const child of list as unknown[]) if (isSchema(child)) withoutClosedObjects(child);
  }
  for (const keyword of MAP) {
    const map = node[keyword];
    if (isSchema(map))
      for (const child of Object.values(map)) if (isSchema(child)) withoutClosedObjects(child);
  }
  return node;
}

/**
 * The JSON Schema (2020-12, MCP's default dialect, so no `$schema`) of a tool's input or output, in the
 * portable spelling: what MCP Inspector's portability check and 2020-12-only clients accept. An input
 * schema leaves out `additionalProperties: false`: every session pays for the tool list in tokens, and
 * the server refuses unknown arguments with its own (unchanged) validation anyway.
 */
export function toolJsonSchema(schema: z.ZodType, io: 'input' | 'output'): Schema {
  const json = z.toJSONSchema(schema, { target: 'draft-2020-12', io }) as Schema;
  const { $schema: _dialect, ...root } = portable(json);
  return io === 'input' ? withoutClosedObjects(root) : root;
}

/** One tool's input and output JSON Schemas, as tools/list shows them. */
export interface ToolSchemas {
  input: Schema;
  output: Schema;
}

/** Every tool's schemas by tool name: what a build writes and `createToolServer` serves. */
export type PrecomputedSchemas = Readonly<Record<string, ToolSchemas>>;

/**
 * The JSON Schemas `createToolServer` would build from these tools, to be computed at build time and
 * passed back as its `schemas` option: converting them costs a server's start tens of milliseconds.
 */
export function toolSchemas(tools: readonly AnyTool[]): PrecomputedSchemas {
  return Object.fromEntries(
    tools.map((tool) => [
      tool.name,
      {
        input: toolJsonSchema(z.object(tool.input).strict(), 'input'),
        output: toolJsonSchema(z.object(tool.output), 'output'),
      },
    ]),
  );
}
