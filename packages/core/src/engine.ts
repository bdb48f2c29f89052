// `@mcp-workbench/core/engine`: everything of core that does not touch MCP — errors, output formats,
// paths, atomic writes, limits, logging. Engines import from here, so a CLI, a worker thread or a
// benchmark that uses an engine starts without loading the MCP SDK.
export { ERROR_CODES, ToolError, isToolError, toToolError } from './errors.js';
export type { CoreErrorCode, ErrorCode, ToolErrorBody, ToolErrorOptions } from './errors.js';
export { PathPolicy } from './paths/path-policy.js';
export type { PathPolicyOptions, ResolveOptions } from './paths/path-policy.js';
export { isWithin, normalizeSeparators } from './paths/containment.js';
export type { PathFlavor } from './paths/containment.js';
export { DenyGlobs } from './paths/deny-globs.js';
export { formatOutput, parseToon, parseYaml, OUTPUT_FORMATS } from './output.js';
export type { FormatOptions, OutputFormat } from './output.js';
export { createLogger, silentLogger, LOG_LEVELS } from './logger.js';
export type { Logger, LoggerOptions, LogLevel } from './logger.js';
export { clampInteger, decodeCursor, encodeCursor, utf8ByteLength } from './limits.js';
export type { PageInfo } from './limits.js';
export { localFiles, withAtomicFile, writeFileAtomic } from './fs/local-files.js';
export { currentCallSignal } from './fs/call-signal.js';
export type { AtomicWriteOptions } from './fs/atomic-write.js';
export {
  DEFAULT_MAX_READ_BYTES,
  openRegularBeneath,
  readOpened,
  requireRegularFile,
} from './fs/file-access.js';
export { CREATE_FLAGS, openDirBeneath, openInDir, PathChangedError, READ_FLAGS } from './fs/beneath.js';
export type { CheckedDir, OpenDirOptions } from './fs/beneath.js';
export type { FileAccess, OpenedFile, ReadFileOptions } from './fs/file-access.js';
export { sweepStaleTemps } from './fs/temp-journal.js';
