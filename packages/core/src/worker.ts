// `@mcp-workbench/core/worker`: the part of `./engine` that an engine running on a worker thread uses —
// errors, output formats, the call's signal, local file access — without the path policy, globs and
// logger, which only the server's own thread needs. A fresh thread loaded `./engine` in ~40 ms, this in
// ~20 (issue 26 §1). The same modules as `./engine`'s, so a thread that loads both still has one
// ToolError class and one call-signal store.
export { ERROR_CODES, ToolError, isToolError, toToolError } from './errors.js';
export type { CoreErrorCode, ErrorCode, ToolErrorBody, ToolErrorOptions } from './errors.js';
export { formatOutput, parseToon, parseYaml, OUTPUT_FORMATS } from './output.js';
export type { FormatOptions, OutputFormat } from './output.js';
export { localFiles, withAtomicFile, writeFileAtomic } from './fs/local-files.js';
export { currentCallSignal } from './fs/call-signal.js';
export type { AtomicWriteOptions } from './fs/atomic-write.js';
export {
  DEFAULT_MAX_READ_BYTES,
  openRegularBeneath,
  readOpened,
  requireRegularFile,
} from './fs/file-access.js';
export type { FileAccess, OpenedFile, ReadFileOptions } from './fs/file-access.js';
