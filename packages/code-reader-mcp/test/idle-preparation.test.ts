// The stdio server prepares its first calls (tokenizer thread, ripgrep's location) only while idle
// after the handshake (issue 25): never during a call, whose ripgrep walk it would slow down.
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { IdlePreparation } from '../src/start/prepare.js';

describe('IdlePreparation', () => {
  beforeEach(() => {
    vi.useFakeTimers();
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it('prepares once, when the server has been idle for a while after the handshake', () => {
    const prepare = vi.fn();
    const idle = new IdlePreparation(prepare, 250);
    vi.advanceTimersByTime(1_000);
    expect(prepare).not.toHaveBeenCalled(); // not before the handshake
    idle.handshakeDone();
    vi.advanceTimersByTime(249);
    expect(prepare).not.toHaveBeenCalled();
    vi.advanceTimersByTime(1);
    expect(prepare).toHaveBeenCalledTimes(1);
    idle.callStarted();
    idle.callEnded();
    vi.advanceTimersByTime(1_000);
    expect(prepare).toHaveBeenCalledTimes(1); // once
  });

  it('never while a call runs: a call that comes first is not slowed by it', () => {
    const prepare = vi.fn();
    const idle = new IdlePreparation(prepare, 250);
    idle.handshakeDone();
    vi.advanceTimersByTime(100);
    idle.callStarted(); // e.g. list_files count_only right after tools/list
    idle.callStarted(); // and another beside it
    vi.advanceTimersByTime(5_000);
    idle.callEnded();
    vi.advanceTimersByTime(5_000);
    expect(prepare).not.toHaveBeenCalled(); // one call still runs
    idle.callEnded();
    vi.advanceTimersByTime(200);
    idle.callStarted(); // the next call came before the server was idle long enough
    idle.callEnded();
    vi.advanceTimersByTime(249);
    expect(prepare).not.toHaveBeenCalled();
    vi.advanceTimersByTime(1);
    expect(prepare).toHaveBeenCalledTimes(1);
  });
});
