import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { ToolError, ToolErrorBody } from '../errors.js';

/**
 * Error answers are bounded like every other answer: a message or detail that echoes the caller's
 * input (a 60,000-character regex, a huge unknown argument name) is clipped, so one bad call cannot
 * cost tens of thousands of tokens. About 8 KB of text (≈ 2,000 tokens) at most.
 */
export const ERROR_TEXT_LIMITS = {
  /** Characters kept of the message and of the hint. */
  message: 1000,
  /** Characters kept of any one string inside `details`. */
  detailString: 300,
  /** Items kept of any one array inside `details`. */
  detailItems: 20,
  /** The whole text block, in characters. */
  total: 8000,
} as const;

/** Keeps the head and the tail of a long string (both usually matter) and says how much went. */
export function clipText(text: string, max: number): string {
  if (text.length <= max) return text;
  const marker = (cut: number) => ` …[${cut} characters clipped]… `;
  const room = Math.max(0, max - marker(text.length).length);
  const head = Math.ceil(room * 0.7);
  const tail = room - head;
  // Never split a surrogate pair: step back over a high surrogate at the cut.
  const headEnd = isHighSurrogate(text.charCodeAt(head - 1)) ? head - 1 : head;
  const tailStart = isLowSurrogate(text.charCodeAt(text.length - tail))
    ? text.length - tail + 1
    : text.length - tail;
  return `${text.slice(0, headEnd)}${marker(tailStart - headEnd)}${text.slice(tailStart)}`;
}

function isHighSurrogate(code: number): boolean {
  return code >= 0xd800 && code <= 0xdbff;
}

function isLowSurrogate(code: number): boolean {
  return code >= 0xdc00 && code <= 0xdfff;
}

function clipValue(value: unknown, depth: number): unknown {
  if (typeof value === 'string') return clipText(value, ERROR_TEXT_LIMITS.detailString);
  if (depth > 6 || value === null || typeof value !== 'object') return value;
  if (Array.isArray(value)) {
    const kept = value.slice(0, ERROR_TEXT_LIMITS.detailItems).map((item) => clipValue(item, depth + 1));
    if (value.length > kept.length) kept.push(`…${value.length - kept.length} more`);
    return kept;
  }
  const out: Record<string, unknown> = {};
  for (const [key, item] of Object.entries(value)) {
    out[clipText(key, ERROR_TEXT_LIMITS.detailString)] = clipValue(item, depth + 1);
  }
  return out;
}

/** The error body with every string clipped; details are dropped if the whole still does not fit. */
export function clippedErrorBody(error: ToolError): ToolErrorBody {
  const body: ToolErrorBody = {
    code: error.code,
    message: clipText(error.message, ERROR_TEXT_LIMITS.message),
  };
  if (error.hint !== undefined) body.hint = clipText(error.hint, ERROR_TEXT_LIMITS.message);
  if (error.details !== undefined) {
    const details = clipValue(error.details, 0) as Record<string, unknown>;
    if (JSON.stringify(details).length <= ERROR_TEXT_LIMITS.total - 2 * ERROR_TEXT_LIMITS.message - 200) {
      body.details = details;
    } else {
      body.details = { clipped: 'The details were too long to send; the server log has them.' };
    }
  }
  return body;
}

/**
 * The answer to a failed call: `isError` with one text block `{"error":{code,message,hint,details}}`.
 * Text only, in every mode: clients drop `structuredContent` on errors (and validate it against the
 * success schema), so the text must carry everything.
 */
export function errorResult(error: ToolError): CallToolResult {
  return {
    isError: true,
    content: [{ type: 'text', text: JSON.stringify({ error: clippedErrorBody(error) }) }],
  };
}
