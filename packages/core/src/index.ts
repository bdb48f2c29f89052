export { ERROR_CODES, ToolError, isToolError, toToolError } from './errors.js';
export type { CoreErrorCode, ErrorCode, ToolErrorBody, ToolErrorOptions } from './errors.js';
export { PathPolicy } from './paths/path-policy.js';
export type { PathPolicyOptions, ResolveOptions } from './paths/path-policy.js';
export { isWithin, normalizeSeparators } from './paths/containment.js';
export type { PathFlavor } from './paths/containment.js';
export { DenyGlobs } from './paths/deny-globs.js';
export { formatOutput, parseToon, OUTPUT_FORMATS } from './output.js';
export type { FormatOptions, OutputFormat } from './output.js';
export { defineTool, reply, ToolReply } from './tools/define-tool.js';
export type {
  AnyTool,
  ToolAnnotations,
  ToolArgs,
  ToolContext,
  ToolOutput,
  ToolSpec,
} from './tools/define-tool.js';
export { createToolServer, errorResult } from './tools/tool-server.js';
export type { ServerIdentity, ToolServerOptions } from './tools/tool-server.js';
export { parseToolArguments } from './tools/validate-input.js';
export { runStdioServer } from './bootstrap/run-stdio-server.js';
export type { ServerRuntime, StdioIo, StdioServerSpec } from './bootstrap/run-stdio-server.js';
export { parseCommonFlags, renderHelp, SHARED_FLAGS, UsageError } from './bootstrap/cli-flags.js';
export type { CommonFlags, FlagSpec, FlagValues } from './bootstrap/cli-flags.js';
export { createLogger, silentLogger, LOG_LEVELS } from './logger.js';
export type { Logger, LoggerOptions, LogLevel } from './logger.js';
export { clampInteger, decodeCursor, encodeCursor, utf8ByteLength } from './limits.js';
export type { PageInfo } from './limits.js';
export { withAtomicFile, writeFileAtomic } from './fs/atomic-write.js';
export type { AtomicWriteOptions } from './fs/atomic-write.js';
