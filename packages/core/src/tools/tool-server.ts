import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import {
  CallToolRequestSchema,
  ListToolsRequestSchema,
  type CallToolResult,
  type Tool,
} from '@modelcontextprotocol/sdk/types.js';
import { AjvJsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/ajv';
import type {
  JsonSchemaType,
  JsonSchemaValidator,
  jsonSchemaValidator,
} from '@modelcontextprotocol/sdk/validation';
import { z } from 'zod';
import { toToolError, ToolError } from '../errors.js';
import { runWithCallSignal } from '../fs/call-signal.js';
import { silentLogger, type Logger } from '../logger.js';
import { formatOutput } from '../output.js';
import type { PathPolicy } from '../paths/path-policy.js';
import { followClientRoots } from './client-roots.js';
import { ToolReply, type AnyTool, type ToolContext } from './define-tool.js';
import { errorResult } from './error-answer.js';
import { toolJsonSchema, type PrecomputedSchemas, type ToolSchemas } from './json-schema.js';
import { parseToolArguments } from './validate-input.js';

export interface ServerIdentity {
  name: string;
  version: string;
  title?: string;
  /** Shown to the model by clients that support server instructions. */
  instructions?: string;
}

export interface ToolServerOptions {
  paths: PathPolicy;
  logger?: Logger;
  /** Replace the roots with the client's MCP roots when it offers them (default true). */
  useClientRoots?: boolean;
  /**
   * Also declare `outputSchema` and send `structuredContent` next to the text block (default false:
   * text only). Most coding clients give the model only `structuredContent` when it is present, which
   * would replace the compact TOON/JSON text with a JSON dump; programmatic clients want it on.
   * `runStdioServer` turns it on for `--structured-output` / `MCP_STRUCTURED_OUTPUT=1`.
   */
  structuredOutput?: boolean;
  /**
   * The tools' JSON Schemas as `toolSchemas` wrote them at build time, served by tools/list instead of
   * converting every zod schema at start (start time). Calls are still validated with the zod schemas;
   * a tool missing from it is converted as usual.
   */
  schemas?: PrecomputedSchemas | undefined;
}

/** How a tool server answers; `runStdioServer` may change it after `createServer` built the server. */
interface AnswerMode {
  structuredOutput: boolean;
}

const answerModes = new WeakMap<McpServer, AnswerMode>();

/**
 * Turns `structuredContent` + `outputSchema` on for a server made by `createToolServer` (a no-op for
 * any other McpServer). The bootstrap calls it for `--structured-output`, so every server gets the
 * flag without passing it through its own `createServer`. Call it before the client lists the tools.
 */
export function enableStructuredOutput(server: McpServer): boolean {
  const mode = answerModes.get(server);
  if (mode) mode.structuredOutput = true;
  return mode !== undefined;
}

/**
 * The SDK's Ajv validator, built on first use. The SDK's Server builds one in its constructor (Ajv plus
 * its formats: ~10 ms of every start), but needs it only to check an elicitation answer.
 */
class LazyAjvValidator implements jsonSchemaValidator {
  #ajv: AjvJsonSchemaValidator | undefined;
  getValidator<T>(schema: JsonSchemaType): JsonSchemaValidator<T> {
    return (this.#ajv ??= new AjvJsonSchemaValidator()).getValidator<T>(schema);
  }
}

const LooseCallToolRequest = z.object({ method: z.literal('tools/call'), params: z.unknown().optional() });

interface CompiledTool {
  tool: AnyTool;
  input: z.ZodObject<z.ZodRawShape>;
  output: z.ZodObject<z.ZodRawShape>;
  /** The tools/list entry without `outputSchema`, and with it (built on first use: start time). */
  listing: Tool;
  structuredListing: () => Tool;
}

/** A precomputed entry is used only while it still names the tool's arguments (a stale build is not). */
function current(tool: AnyTool, schemas: ToolSchemas | undefined): ToolSchemas | undefined {
  const properties = schemas?.input.properties;
  if (typeof properties !== 'object' || properties === null) return undefined;
  const built = Object.keys(properties);
  const now = Object.keys(tool.input);
  return built.length === now.length && now.every((name) => Object.hasOwn(properties, name))
    ? schemas
    : undefined;
}

function compile(tool: AnyTool, schemas: ToolSchemas | undefined): CompiledTool {
  const precomputed = current(tool, schemas);
  const input = z.object(tool.input).strict();
  const output = z.object(tool.output);
  const listing: Tool = {
    name: tool.name,
    title: tool.title,
    description: tool.description,
    inputSchema: (precomputed?.input ?? toolJsonSchema(input, 'input')) as Tool['inputSchema'],
    annotations: { title: tool.title, ...tool.annotations },
  };
  let structured: Tool | undefined;
  const structuredListing = () =>
    (structured ??= {
      ...listing,
      outputSchema: (precomputed?.output ?? toolJsonSchema(output, 'output')) as Tool['outputSchema'],
    });
  return { tool, input, output, listing, structuredListing };
}

/**
 * Builds an McpServer whose tools are validated with their zod schemas, whose failures are ToolErrors
 * with stable codes, and whose answers are one text block (JSON, or TOON/YAML when the tool's
 * `textFormat` says so) — plus `structuredContent` and `outputSchema` when `structuredOutput` is on.
 */
export function createToolServer(
  identity: ServerIdentity,
  tools: readonly AnyTool[],
  options: ToolServerOptions,
) {
  const logger = options.logger ?? silentLogger;
  const compiled = new Map<string, CompiledTool>();
  for (const tool of tools) {
    if (compiled.has(tool.name)) throw new Error(`Duplicate tool name: ${tool.name}`);
    compiled.set(tool.name, compile(tool, options.schemas?.[tool.name]));
  }

  const info = {
    name: identity.name,
    version: identity.version,
    ...(identity.title ? { title: identity.title } : {}),
  };
  const mcp = new McpServer(info, {
    jsonSchemaValidator: new LazyAjvValidator(),
    ...(identity.instructions ? { instructions: identity.instructions } : {}),
  });
  const server = mcp.server;
  const mode: AnswerMode = { structuredOutput: options.structuredOutput === true };
  answerModes.set(mcp, mode);
  server.registerCapabilities({ tools: { listChanged: false } });

  server.setRequestHandler(ListToolsRequestSchema, () => ({
    tools: [...compiled.values()].map((entry) =>
      mode.structuredOutput ? entry.structuredListing() : entry.listing,
    ),
  }));

  // Registered with a loose schema: the SDK parses a request with the registered schema before anything
  // else and answers a ZodError with -32603 (Internal error). With the loose one, the SDK's own tools/call
  // check runs first and answers malformed params with -32602 (Invalid params), as JSON-RPC asks.
  server.setRequestHandler(LooseCallToolRequest, async (loose, extra): Promise<CallToolResult> => {
    const request = CallToolRequestSchema.parse(loose); // already checked by the SDK: cannot fail here
    const entry = compiled.get(request.params.name);
    if (!entry) {
      return errorResult(
        new ToolError('NOT_FOUND', `Unknown tool "${request.params.name}".`, {
          hint: `Available tools: ${[...compiled.keys()].join(', ')}.`,
        }),
      );
    }
    const progressToken = request.params._meta?.progressToken;
    const context: ToolContext = {
      paths: options.paths,
      logger,
      signal: extra.signal,
      structuredOutput: mode.structuredOutput,
      progress: async (progress, total, message) => {
        if (progressToken === undefined) return;
        await extra.sendNotification({
          method: 'notifications/progress',
          params: {
            progressToken,
            progress,
            ...(total === undefined ? {} : { total }),
            ...(message ? { message } : {}),
          },
        });
      },
    };
    try {
      const args = parseToolArguments<never>(entry.tool.name, entry.input, request.params.arguments);
      // Atomic writes inside the call pick up its signal (see fs/call-signal.ts).
      const result = await runWithCallSignal(extra.signal, () => entry.tool.run(args, context));
      const custom = result instanceof ToolReply ? (result as ToolReply<unknown>) : undefined;
      const value = custom ? custom.structured : result;
      const checked = entry.output.safeParse(value);
      if (!checked.success) {
        logger.error(`Tool ${entry.tool.name} produced output that breaks its schema`, checked.error.issues);
        throw new ToolError(
          'INTERNAL',
          'The tool produced an invalid result; the server log has the details.',
        );
      }
      const structured = checked.data as Record<string, unknown>;
      const text =
        custom?.text ??
        formatOutput(structured, entry.tool.textFormat?.(args) ?? 'json', entry.tool.textOptions);
      const content: CallToolResult['content'] = [{ type: 'text', text }];
      for (const image of custom?.images ?? []) content.push({ type: 'image', ...image });
      return mode.structuredOutput ? { structuredContent: structured, content } : { content };
    } catch (error) {
      const toolError = toToolError(error);
      if (toolError.code === 'INTERNAL')
        logger.error(`Tool ${entry.tool.name} failed`, toolError.cause ?? error);
      else logger.debug(`Tool ${entry.tool.name}: ${toolError.code} ${toolError.message}`);
      return errorResult(toolError);
    }
  });

  if (options.useClientRoots ?? true) followClientRoots(server, options.paths, logger);
  return mcp;
}
