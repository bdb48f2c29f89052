import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { ListRootsRequestSchema, type CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { pathToFileURL } from 'node:url';
import { parse as parseYaml } from 'yaml';
import { parseToon } from '../output.js';
import type { ToolErrorBody } from '../errors.js';

export interface ClientOptions {
  /** Offer these directories as MCP roots (the server then uses them instead of its CLI roots). */
  roots?: string[];
  name?: string;
}

export interface TestClient {
  client: Client;
  /** Changes the offered roots and sends `roots/list_changed`. */
  setRoots(roots: string[]): Promise<void>;
  close(): Promise<void>;
}

function makeClient(options: ClientOptions) {
  let roots = options.roots;
  const client = new Client(
    { name: options.name ?? 'mcp-workbench-test-client', version: '0.0.0' },
    { capabilities: roots ? { roots: { listChanged: true } } : {} },
  );
  if (roots) {
    client.setRequestHandler(ListRootsRequestSchema, () => ({
      roots: (roots ?? []).map((dir) => ({ uri: pathToFileURL(dir).href, name: dir })),
    }));
  }
  const setRoots = async (next: string[]) => {
    roots = next;
    await client.sendRootsListChanged();
  };
  return { client, setRoots };
}

/** Connects a real MCP Client to a server in the same process (InMemoryTransport). */
export async function connectInMemory(server: McpServer, options: ClientOptions = {}): Promise<TestClient> {
  const [clientTransport, serverTransport] = InMemoryTransport.createLinkedPair();
  const { client, setRoots } = makeClient(options);
  await server.connect(serverTransport);
  await client.connect(clientTransport);
  return {
    client,
    setRoots,
    close: async () => {
      await client.close();
      await server.close();
    },
  };
}

export interface SpawnOptions extends ClientOptions {
  cwd?: string;
  env?: Record<string, string>;
}

export interface SpawnedClient extends TestClient {
  /** Everything the server wrote to stderr so far. */
  stderr(): string;
  /** The server's process id (to look at its open files, threads and memory). */
  pid: number | undefined;
}

/** Spawns a built server binary and connects a real MCP Client to it over stdio. */
export async function spawnStdioClient(
  command: string,
  args: string[],
  options: SpawnOptions = {},
): Promise<SpawnedClient> {
  const transport = new StdioClientTransport({
    command,
    args,
    ...(options.cwd ? { cwd: options.cwd } : {}),
    env: { ...(process.env as Record<string, string>), ...options.env },
    stderr: 'pipe',
  });
  let stderr = '';
  transport.stderr?.on('data', (chunk: Buffer) => {
    stderr += chunk.toString('utf8');
  });
  const { client, setRoots } = makeClient(options);
  try {
    await client.connect(transport);
  } catch (error) {
    // A server that died while starting said why on stderr: put it in the failure.
    const message = error instanceof Error ? error.message : String(error);
    throw new Error(`${command} ${args.join(' ')}: ${message}\nstderr:\n${stderr.slice(-4000)}`, {
      cause: error,
    });
  }
  return {
    client,
    setRoots,
    close: () => client.close(),
    stderr: () => stderr,
    pid: transport.pid ?? undefined,
  };
}

export type AnswerFormat = 'json' | 'toon' | 'yaml';

export interface ToolCallOutcome<T = Record<string, unknown>> {
  isError: boolean;
  /**
   * The answer as the model reads it: the text block decoded (JSON, TOON with the official decoder, or
   * YAML). Undefined when the text is none of them (a plain-text answer).
   */
  structured: T;
  /** The format the text block was decoded from. */
  format: AnswerFormat | undefined;
  /** `structuredContent` exactly as sent: present only when the server runs with structured output. */
  structuredContent: Record<string, unknown> | undefined;
  text: string;
  /** The error body of an isError result. */
  error: ToolErrorBody | undefined;
  raw: CallToolResult;
}

export interface CallToolOptions {
  /** Decode the text block as this format instead of guessing (JSON, then TOON, then YAML). */
  format?: AnswerFormat;
  /** Cancels the call (the client sends notifications/cancelled). */
  signal?: AbortSignal;
  /** Client-side time limit in ms (the SDK's default is 60 s). */
  timeout?: number;
}

/**
 * Decodes a text answer. Without a format: JSON first (strict), then TOON with the official strict
 * decoder, then YAML. A TOON document is never valid JSON (except a bare primitive, which decodes to
 * the same value), so the order cannot mistake one for the other.
 */
export function decodeAnswerText(
  text: string,
  format?: AnswerFormat,
): { value: unknown; format: AnswerFormat } | undefined {
  const attempts: AnswerFormat[] = format ? [format] : ['json', 'toon', 'yaml'];
  for (const attempt of attempts) {
    try {
      if (attempt === 'json') return { value: JSON.parse(text), format: attempt };
      if (attempt === 'toon') return { value: parseToon(text), format: attempt };
      return { value: parseYaml(text, { version: '1.1' }), format: attempt };
    } catch {
      // try the next format
    }
  }
  return undefined;
}

/** Calls a tool and unpacks the text (decoded), the structured content and (for failures) the error body. */
export async function callTool<T = Record<string, unknown>>(
  client: Client,
  name: string,
  args: Record<string, unknown> = {},
  options: CallToolOptions = {},
): Promise<ToolCallOutcome<T>> {
  const requestOptions = {
    ...(options.signal ? { signal: options.signal } : {}),
    ...(options.timeout !== undefined ? { timeout: options.timeout } : {}),
  };
  const raw = (await client.callTool({ name, arguments: args }, undefined, requestOptions)) as CallToolResult;
  const text = raw.content
    .filter((block): block is { type: 'text'; text: string } => block.type === 'text')
    .map((block) => block.text)
    .join('\n');
  const decoded = decodeAnswerText(text, raw.isError ? 'json' : options.format);
  let error: ToolErrorBody | undefined;
  if (raw.isError) {
    error = (decoded?.value as { error?: ToolErrorBody } | undefined)?.error ?? {
      code: 'UNKNOWN',
      message: text,
    };
  }
  return {
    isError: raw.isError === true,
    structured: decoded?.value as T,
    format: decoded?.format,
    structuredContent: raw.structuredContent,
    text,
    error,
    raw,
  };
}

/** Decodes a TOON text block with the official decoder. */
export function decodeToonText(text: string): unknown {
  return parseToon(text);
}

export { commonJsModulesLoadedBy } from './loaded-modules.js';
export { startLinkFlipper } from './link-flipper.js';
export type { LinkFlipper } from './link-flipper.js';
export {
  schemaPortabilityProblems,
  SchemaValidator,
  structuredAnswerProblems,
  toolSchemaProblems,
} from './schemas.js';
export type { ToolCallSpec } from './schemas.js';
export { inspectedTools, inspectorLauncher, runInspectorCli } from './inspector.js';
export type { InspectorOptions, InspectorRun } from './inspector.js';
export { cancelAtRandomMoments, pingLatencyDuring, seededRandom } from './responsiveness.js';
export type { PingLatency, RandomCancelOptions, RandomCancelReport } from './responsiveness.js';
export { callAsListed, toolListBudgetProblems, toolListCosts } from './tool-list.js';
export type { ToolListBudget, ToolListCost } from './tool-list.js';
export { writeResolveHook } from './resolve-hook.js';
export type { ResolveLog } from './resolve-hook.js';
