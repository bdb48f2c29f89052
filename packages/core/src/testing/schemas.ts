import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { CallToolResult, Tool } from '@modelcontextprotocol/sdk/types.js';
import { CONSTRAINING, isSchema, JSON_SCHEMA_DIALECT, MANY, MAP, ONE } from '../tools/json-schema.js';

type Schema = Record<string, unknown>;

/** Keywords of draft-07 and older that 2020-12 replaced. */
const DRAFT_07_ONLY = ['definitions', 'dependencies', 'additionalItems', '$recursiveRef', '$recursiveAnchor'];
const BOOLEAN_ALLOWED = new Set(['additionalProperties', 'unevaluatedProperties', 'unevaluatedItems']);
function newAjv(): Ajv2020 {
  // strict: unknown keywords, draft-07 tuple syntax and ambiguous types are errors, not silently ignored.
  // (strictTuples would also refuse open tuples with rest items, which are plain 2020-12.)
  return new Ajv2020({ strict: true, strictTuples: false, allErrors: true, validateFormats: false });
}

/**
 * What keeps a tool schema from being accepted by every client: declared as another dialect, refused by a
 * strict 2020-12 validator, or spelled in a way MCP Inspector's portability check warns about (type
 * arrays, untyped or boolean subschemas, remote refs, draft-07 keywords). Empty when portable.
 */
export function schemaPortabilityProblems(schema: unknown): string[] {
  const problems: string[] = [];
  if (!isSchema(schema)) return ['the schema is not an object'];
  // No $schema means 2020-12 (MCP 2025-11-25); a declared one must say so.
  if (schema.$schema !== undefined && schema.$schema !== JSON_SCHEMA_DIALECT) {
    problems.push(`$schema is ${JSON.stringify(schema.$schema)}, not ${JSON_SCHEMA_DIALECT}`);
  }
  try {
    newAjv().compile(schema);
  } catch (error) {
    problems.push(`a strict 2020-12 validator refuses it: ${(error as Error).message}`);
  }
  const visit = (node: unknown, at: string, keyword: string | undefined) => {
    if (typeof node === 'boolean') {
      if (!keyword || !BOOLEAN_ALLOWED.has(keyword)) problems.push(`${at}: boolean schema ${String(node)}`);
      return;
    }
    if (!isSchema(node)) {
      problems.push(`${at}: not a schema`);
      return;
    }
    if (Array.isArray(node.type)) problems.push(`${at}: type is an array ${JSON.stringify(node.type)}`);
    if (keyword !== 'not' && !Object.keys(node).some((k) => CONSTRAINING.has(k))) {
      problems.push(`${at}: untyped schema (accepts anything) ${JSON.stringify(node)}`);
    }
    if (Array.isArray(node.items)) problems.push(`${at}: draft-07 tuple syntax (items is an array)`);
    for (const old of DRAFT_07_ONLY) if (old in node) problems.push(`${at}: draft-07 keyword ${old}`);
    if (typeof node.$ref === 'string' && !node.$ref.startsWith('#')) problems.push(`${at}: remote $ref`);
    for (const k of ONE) if (k in node) visit(node[k], `${at}.${k}`, k);
    for (const k of MANY) {
      const list = node[k];
      if (Array.isArray(list)) list.forEach((child, i) => visit(child, `${at}.${k}[${i}]`, k));
    }
    for (const k of MAP) {
      const map = node[k];
      if (isSchema(map))
        for (const [name, child] of Object.entries(map)) visit(child, `${at}.${k}.${name}`, k);
    }
  };
  visit(schema, '#', undefined);
  return problems;
}

/** Every input and output schema of a tool list, with its problems; empty when all are portable. */
export function toolSchemaProblems(tools: readonly Tool[]): string[] {
  const problems: string[] = [];
  for (const tool of tools) {
    for (const [which, schema] of [
      ['inputSchema', tool.inputSchema],
      ['outputSchema', tool.outputSchema],
    ] as const) {
      if (schema === undefined) continue;
      for (const problem of schemaPortabilityProblems(schema))
        problems.push(`${tool.name} ${which}: ${problem}`);
    }
  }
  return problems;
}

/** Validates values against schemas with a strict JSON Schema 2020-12 validator (compiled once each). */
export class SchemaValidator {
  private readonly ajv = newAjv();
  private readonly compiled = new Map<unknown, ValidateFunction>();

  /** The validation errors of `value` against `schema`, as readable lines; empty when valid. */
  errors(schema: unknown, value: unknown): string[] {
    let validate = this.compiled.get(schema);
    if (!validate) {
      validate = this.ajv.compile(schema as Schema);
      this.compiled.set(schema, validate);
    }
    if (validate(value)) return [];
    return (validate.errors ?? []).map(
      (e) => `${e.instancePath || '/'} ${e.message ?? e.keyword} ${JSON.stringify(e.params)}`,
    );
  }
}

export interface ToolCallSpec {
  name: string;
  arguments?: Record<string, unknown>;
}

/**
 * For a server running with structured output: checks every tool schema's portability, then makes each
 * call and validates its `structuredContent` against the tool's declared output schema with a strict
 * 2020-12 validator (and that the text block is still there). Returns the problems; empty when all is well.
 */
export async function structuredAnswerProblems(
  client: Client,
  calls: readonly ToolCallSpec[],
): Promise<string[]> {
  const { tools } = await client.listTools();
  const problems = toolSchemaProblems(tools);
  const validator = new SchemaValidator();
  for (const tool of tools) if (!tool.outputSchema) problems.push(`${tool.name}: no outputSchema declared`);
  for (const call of calls) {
    const tool = tools.find((t) => t.name === call.name);
    if (!tool?.outputSchema) {
      problems.push(`${call.name}: not listed with an output schema`);
      continue;
    }
    const result = (await client.callTool({
      name: call.name,
      arguments: call.arguments ?? {},
    })) as CallToolResult;
    const label = `${call.name}(${JSON.stringify(call.arguments ?? {}).slice(0, 80)})`;
    if (result.isError) {
      problems.push(`${label}: failed: ${JSON.stringify(result.content).slice(0, 300)}`);
      continue;
    }
    if (!result.content.some((block) => block.type === 'text')) problems.push(`${label}: no text block`);
    if (result.structuredContent === undefined) {
      problems.push(`${label}: no structuredContent`);
      continue;
    }
    for (const error of validator.errors(tool.outputSchema, result.structuredContent)) {
      problems.push(`${label}: ${error}`);
    }
  }
  return problems;
}
