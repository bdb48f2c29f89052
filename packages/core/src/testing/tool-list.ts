import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { Tool } from '@modelcontextprotocol/sdk/types.js';
import { isSchema } from '../tools/json-schema.js';
import { callTool, type ToolCallOutcome } from './index.js';
import { SchemaValidator } from './schemas.js';

/** What one tool costs every session before its first call. */
export interface ToolListCost {
  name: string;
  tokens: number;
}

/**
 * The tokens each tools/list entry costs as clients put it before the model: name, description and
 * input schema as JSON (`countTokens` is the tokenizer, e.g. gpt-tokenizer's o200k `countTokens`).
 */
export async function toolListCosts(
  client: Client,
  countTokens: (text: string) => number,
): Promise<ToolListCost[]> {
  const { tools } = await client.listTools();
  return tools.map((tool) => ({
    name: tool.name,
    tokens:
      countTokens(tool.name) +
      countTokens(tool.description ?? '') +
      countTokens(JSON.stringify(tool.inputSchema)),
  }));
}

export interface ToolListBudget {
  /** Average over the server's tools (default 250). */
  average?: number;
  /** No single tool above this (default 500). */
  perTool?: number;
  /** Tighter budgets for named tools: a tool's entry may not grow past its own. */
  tools?: Readonly<Record<string, number>>;
}

/** Where a tool list breaks its budget, as readable lines; empty when it keeps it. */
export function toolListBudgetProblems(
  costs: readonly ToolListCost[],
  budget: ToolListBudget = {},
): string[] {
  const average = budget.average ?? 250;
  const perTool = budget.perTool ?? 500;
  const problems: string[] = [];
  const total = costs.reduce((sum, cost) => sum + cost.tokens, 0);
  if (costs.length > 0 && total / costs.length > average) {
    problems.push(
      `average ${Math.round(total / costs.length)} tokens per tool > ${average} (total ${total})`,
    );
  }
  for (const { name, tokens } of costs) {
    const limit = Math.min(perTool, budget.tools?.[name] ?? perTool);
    if (tokens > limit) problems.push(`${name}: ${tokens} tokens > ${limit}`);
  }
  return problems;
}

/**
 * Calls a tool the way a model that read only tools/list would: the arguments must use only the names
 * the listed input schema declares, give every required one and respect its types and enums, or the
 * call is refused here (a test failure) before it is made.
 */
export async function callAsListed<T = Record<string, unknown>>(
  client: Client,
  tools: readonly Tool[],
  name: string,
  args: Record<string, unknown> = {},
): Promise<ToolCallOutcome<T>> {
  const tool = tools.find((entry) => entry.name === name);
  if (!tool) throw new Error(`${name} is not in tools/list`);
  const schema = tool.inputSchema as Record<string, unknown>;
  const declared = isSchema(schema.properties) ? Object.keys(schema.properties) : [];
  const undeclared = Object.keys(args).filter((arg) => !declared.includes(arg));
  const problems = [
    ...undeclared.map((arg) => `argument ${arg} is not declared by tools/list`),
    ...new SchemaValidator().errors(schema, args),
  ];
  if (problems.length > 0) throw new Error(`${name}: ${problems.join('; ')}`);
  return callTool<T>(client, name, args);
}
