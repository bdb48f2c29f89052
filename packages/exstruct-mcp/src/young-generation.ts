// The server's young generation while its modules load (issue 26 §1). Compiling the ~300 modules of the
// server (core, the MCP SDK, zod, ours) makes V8 grow its young generation to the full 16 MB per
// semi-space, which then stays committed for the life of the process though an idle server allocates
// little (new space 16 MB resident at the handshake; 2 MB with this). Measured through the bin: RSS at
// the handshake 86-92 -> 74-80 MB, peak of two 1,000-sheet extractions 166-178 -> 148-158 MB.
import v8 from 'node:v8';

/** V8's own growth factor of the semi-spaces (Node 20-24). */
const V8_DEFAULT_GROWTH = 2;

/** Keeps the young generation at its initial size until `restoreYoungGeneration` (call it first). */
export function holdYoungGeneration(): void {
  v8.setFlagsFromString('--semi-space-growth-factor=1');
}

/**
 * Lets the young generation grow again, as V8 would (the server's own work, and the threads it starts,
 * which read the flag when they are created, size their heaps as usual).
 */
export function restoreYoungGeneration(): void {
  v8.setFlagsFromString(`--semi-space-growth-factor=${V8_DEFAULT_GROWTH}`);
}
