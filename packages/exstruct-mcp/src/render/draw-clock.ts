import { ToolError } from '@mcp-workbench/core/engine';

/**
 * Most time a call may spend drawing. Clients give a tool call 60 s; how long an image takes depends on
 * what is on it (a blank 7 MP page takes 0.1 s, one full of text at 600 dpi 2 s), so the time is
 * watched rather than guessed from pixels.
 */
export const DRAW_BUDGET_MS = 40_000;

/**
 * Watches the time images take: once two are drawn, a call whose images would not all be drawn within
 * the budget (at the pace so far) stops with LIMIT_EXCEEDED, rather than answering after the client
 * has given up.
 */
export class DrawClock {
  private done = 0;
  /** When the first image was started: the pace counts drawing only, not reading the sheets. */
  private drawBegan = 0;

  /** `began`: when the call started (reading the sheets counts against the budget too). */
  constructor(
    private readonly total: number,
    private readonly began = Date.now(),
    private readonly budgetMs = DRAW_BUDGET_MS,
  ) {}

  /** Call before each image; throws when the images left would not fit the budget. */
  next(): void {
    const now = Date.now();
    if (this.done === 0) this.drawBegan = now;
    const elapsed = now - this.began;
    // The pace is judged from two images on: the first also warms the rasteriser up.
    const pace = (now - this.drawBegan) / Math.max(1, this.done);
    const expected = this.done >= 2 ? elapsed + pace * (this.total - this.done) : elapsed;
    if (expected > this.budgetMs) {
      const seconds = Math.round(expected / 1000);
      throw new ToolError(
        'LIMIT_EXCEEDED',
        `Drawing ${this.total} images would take about ${seconds} s (${this.done} drawn in ${Math.round(elapsed / 1000)} s); a call may read and draw for at most ${this.budgetMs / 1000} s. Nothing was written.`,
        {
          hint: 'Pass a lower dpi (144 is sharp, 96 screen size) or a smaller range, or draw the sheets one call each.',
          details: { images: this.total, drawn: this.done, elapsed_ms: elapsed },
        },
      );
    }
    this.done++;
  }
}
