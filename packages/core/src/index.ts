// The whole core: the MCP-free engine API plus the tool server, the stdio bootstrap and CLI flags.
export * from './engine.js';
export { defineTool, reply, ToolReply, withImages } from './tools/define-tool.js';
export type { ReplyImage } from './tools/define-tool.js';
export type {
  AnyTool,
  ToolAnnotations,
  ToolArgs,
  ToolContext,
  ToolOutput,
  ToolSpec,
} from './tools/define-tool.js';
export { createToolServer, enableStructuredOutput } from './tools/tool-server.js';
export { clipText, errorResult, ERROR_TEXT_LIMITS } from './tools/error-answer.js';
export type { ServerIdentity, ToolServerOptions } from './tools/tool-server.js';
export { toolSchemas } from './tools/json-schema.js';
export type { PrecomputedSchemas, ToolSchemas } from './tools/json-schema.js';
export { parseToolArguments } from './tools/validate-input.js';
export { runStdioServer } from './bootstrap/run-stdio-server.js';
export { MAX_ANSWER_BYTES, MAX_REQUEST_BYTES } from './bootstrap/guarded-stdio-transport.js';
export { ROOTS_LIST_TIMEOUT_MS } from './tools/client-roots.js';
export { trackCalls, WhenIdle } from './tools/when-idle.js';
export type { ServerRuntime, StdioIo, StdioServerSpec } from './bootstrap/run-stdio-server.js';
export { parseCommonFlags, renderHelp, SHARED_FLAGS, UsageError } from './bootstrap/cli-flags.js';
export type { CommonFlags, FlagSpec, FlagValues } from './bootstrap/cli-flags.js';
