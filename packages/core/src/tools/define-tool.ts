import type { z } from 'zod';
import type { Logger } from '../logger.js';
import type { FormatOptions, OutputFormat } from '../output.js';
import type { PathPolicy } from '../paths/path-policy.js';

export interface ToolAnnotations {
  readOnlyHint?: boolean;
  destructiveHint?: boolean;
  idempotentHint?: boolean;
  openWorldHint?: boolean;
}

/** What a tool handler gets besides its arguments. */
export interface ToolContext {
  /** The path policy: every file a tool touches goes through `paths.resolve`. */
  paths: PathPolicy;
  logger: Logger;
  /** Aborted when the client cancels the request. */
  signal: AbortSignal;
  /** Sends `notifications/progress` when the client asked for progress; a no-op otherwise. */
  progress: (progress: number, total?: number, message?: string) => Promise<void>;
  /**
   * True when the answer also goes out as `structuredContent` (`--structured-output`): the whole
   * structured value is sent, not only the text. A tool may skip work only for fields its text leaves out
   * when this is not true.
   */
  structuredOutput?: boolean;
}

/** An image a result carries after its text block (MCP image content), for multimodal clients. */
export interface ReplyImage {
  /** Base64 of the image's bytes. */
  data: string;
  mimeType: string;
}

/**
 * A result with a hand-made text block (e.g. a TOON document that is not simply the encoding of the
 * structured value), or with images after the usual text block. Return `reply(value, text)` or
 * `withImages(value, images)` from `run` to use it.
 */
export class ToolReply<O> {
  constructor(
    readonly structured: O,
    /** undefined: the text block is the structured value in the tool's text format, as usual. */
    readonly text: string | undefined,
    readonly images: readonly ReplyImage[] = [],
  ) {}
}

export function reply<O>(structured: O, text: string): ToolReply<O> {
  return new ToolReply(structured, text);
}

/** The usual answer (one text block of the structured value) followed by image content blocks. */
export function withImages<O>(structured: O, images: readonly ReplyImage[]): ToolReply<O> {
  return new ToolReply(structured, undefined, images);
}

export type ToolArgs<I extends z.ZodRawShape> = z.output<z.ZodObject<I>>;
export type ToolOutput<O extends z.ZodRawShape> = z.output<z.ZodObject<O>>;

export interface ToolSpec<I extends z.ZodRawShape, O extends z.ZodRawShape> {
  /** As the spec names it (`exstruct_extract`), in the characters every client accepts: `^[a-zA-Z0-9_-]{1,64}$`. */
  name: string;
  title: string;
  /** Teaches an agent how to succeed on the first call. */
  description: string;
  annotations: ToolAnnotations;
  input: I;
  output: O;
  /** How the text block renders the result (default: compact JSON). */
  textFormat?: (args: ToolArgs<I>) => OutputFormat;
  textOptions?: FormatOptions;
  run(args: ToolArgs<I>, context: ToolContext): Promise<ToolOutput<O> | ToolReply<ToolOutput<O>>>;
}

/** A tool with its type parameters erased, for lists of heterogeneous tools. */
export interface AnyTool {
  name: string;
  title: string;
  description: string;
  annotations: ToolAnnotations;
  input: z.ZodRawShape;
  output: z.ZodRawShape;
  textFormat?: (args: never) => OutputFormat;
  textOptions?: FormatOptions;
  run(args: never, context: ToolContext): Promise<unknown>;
}

/** Identity function that gives a tool definition its types. */
export function defineTool<I extends z.ZodRawShape, O extends z.ZodRawShape>(spec: ToolSpec<I, O>): AnyTool {
  return spec;
}
