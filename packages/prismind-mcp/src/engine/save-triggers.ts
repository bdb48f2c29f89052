import type { Logger } from '@mcp-workbench/core/engine';
import type { Engine } from './engine.js';
import { PRESSURE_MESSAGE, SAVED_MESSAGE, saveState } from './sessions.js';

/**
 * A rough token count of an answer: about four Latin characters per token, about one token per CJK or
 * other non-ASCII character (what the o200k and cl100k tokenizers average on such text). The budget is
 * a trigger, not a bill, so an estimate that costs nothing is the right tool.
 */
export function estimateTokens(text: string): number {
  let ascii = 0;
  let other = 0;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code < 0x80) ascii++;
    else if (code < 0xdc00 || code > 0xdfff) other++; // a surrogate pair counts once
  }
  return Math.ceil(ascii / 4 + other);
}

/**
 * The spec's save triggers besides end_session. An MCP server sees its own tool calls, not the chat, so
 * `session.auto_save_interval` counts this server's calls; context pressure is the running total of the
 * tokens of this server's answers since the session started (or since the last pressure save), measured
 * against `session.context_budget_tokens`. Both save only while a session runs (start_session … end_session).
 */
export class SaveTriggers {
  private calls = 0;
  private tokens = 0;

  constructor(
    private readonly engine: Engine,
    private readonly logger: Logger,
  ) {}

  /** A session started or ended: counting starts again. */
  reset(): void {
    this.calls = 0;
    this.tokens = 0;
  }

  /** Called after each successful tool call with the answer's text; returns a notice to add, if a save happened. */
  async afterCall(tool: string, answer: string): Promise<string | undefined> {
    if (tool === 'start_session' || tool === 'end_session') {
      this.reset();
      if (tool === 'start_session') this.tokens = estimateTokens(answer);
      return undefined;
    }
    if (!this.engine.active) return undefined;
    this.calls++;
    this.tokens += estimateTokens(answer);
    const { auto_save_interval: interval, context_budget_tokens: budget } = this.engine.config.session;
    const pressure = budget > 0 && this.tokens >= budget;
    const periodic = interval > 0 && this.calls % interval === 0 && tool !== 'save_session';
    if (!pressure && !periodic) return undefined;
    try {
      await saveState(this.engine, {}, false);
    } catch (error) {
      this.logger.warn('Automatic session save failed', error);
      return undefined;
    }
    if (pressure) {
      this.tokens = 0;
      return PRESSURE_MESSAGE;
    }
    return SAVED_MESSAGE;
  }
}
