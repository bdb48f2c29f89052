// The extraction thread is started once the server is idle after the handshake, never while a call runs
// (src/jobs/idle-start.ts): a first call made right after the handshake does not share the cores with
// the thread's start.
import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { IdleStart } from '../src/jobs/idle-start.js';

const IDLE = 30;

describe('IdleStart', () => {
  it('starts nothing before the handshake, however long the server is idle', async () => {
    let started = 0;
    const idle = new IdleStart(() => started++, IDLE);
    await sleep(IDLE * 3);
    expect(started).toBe(0);
    idle.handshakeDone();
    await sleep(IDLE * 3);
    expect(started).toBe(1);
  });

  it('waits while a call runs, starts once idle after it, and only once', async () => {
    let started = 0;
    const idle = new IdleStart(() => started++, IDLE);
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
    const idle = new IdleStart(() => started++, IDLE);
    idle.handshakeDone();
    idle.close();
    await sleep(IDLE * 3);
    expect(started).toBe(0);
  });
});
