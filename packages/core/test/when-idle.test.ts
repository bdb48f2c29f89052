// A server's work ahead of its first calls runs once it is idle after the handshake, never while a call
// runs (src/tools/when-idle.ts): a first call made right after the handshake does not share the cores
// with it.
import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { trackCalls, WhenIdle } from '../src/tools/when-idle.js';
import type { AnyTool, ToolContext } from '../src/tools/define-tool.js';

const IDLE = 30;

describe('WhenIdle', () => {
  it('starts nothing before the handshake, however long the server is idle', async () => {
    let started = 0;
    const idle = new WhenIdle(() => started++, IDLE);
    await sleep(IDLE * 3);
    expect(started).toBe(0);
    idle.handshakeDone();
    await sleep(IDLE * 3);
    expect(started).toBe(1);
  });

  it('waits while a call runs, starts once idle after it, and only once', async () => {
    let started = 0;
    const idle = new WhenIdle(() => started++, IDLE);
    idle.handshakeDone();
    idle.callStarted(); // a first call right after the handshake
    await sleep(IDLE * 3);
    expect(started).toBe(0);
    idle.callEnded();
    await sleep(IDLE / 3);
    expect(started).toBe(0); // not idle for long enough yet
    await sleep(IDLE * 3);
    expect(started).toBe(1);
    idle.callStarted();
    idle.callEnded();
    await sleep(IDLE * 3);
    expect(started).toBe(1);
  });

  it('starts nothing once the server has closed', async () => {
    let started = 0;
    const idle = new WhenIdle(() => started++, IDLE);
    idle.handshakeDone();
    idle.close();
    await sleep(IDLE * 3);
    expect(started).toBe(0);
  });

  it('counts a tracked call that fails as ended', async () => {
    let started = 0;
    const idle = new WhenIdle(() => started++, IDLE);
    idle.handshakeDone();
    const failing = {
      run: () => sleep(IDLE * 4).then(() => Promise.reject(new Error('bad input'))),
    } as unknown as AnyTool;
    const call = trackCalls(failing, idle).run(undefined as never, {} as ToolContext);
    const failed = expect(call).rejects.toThrow('bad input');
    await sleep(IDLE * 2);
    expect(started).toBe(0); // the call is still running
    await failed;
    await sleep(IDLE * 3);
    expect(started).toBe(1);
  });
});
