// A tool call as a user's client makes it: the built bin spawned over stdio, the MCP SDK's own Client,
// the call timed from request to answer. The server's peak memory (its VmHWM: threads included) is read
// from /proc.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
const BIN = path.resolve(here, '../../dist/index.js');
// The SDK is core's dependency: resolved from there.
const fromCore = createRequire(createRequire(import.meta.url).resolve('@mcp-workbench/core'));
const { Client } = fromCore('@modelcontextprotocol/sdk/client/index.js');
const { StdioClientTransport } = fromCore('@modelcontextprotocol/sdk/client/stdio.js');

/** The fields of /proc/<pid>/stat after the command name (the state is [0]: field 3 of proc(5)). */
function statFields(pid) {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  return stat.slice(stat.lastIndexOf(')') + 2).split(' ');
}

/** CPU time (user + system, every thread) a process has used so far, in ms. */
export function cpuMs(pid) {
  const fields = statFields(pid);
  return ((Number(fields[11]) + Number(fields[12])) * 1000) / CLOCK_TICKS;
}

/**
 * Memory a process has touched for the first time so far, in MiB: its minor page faults (every thread),
 * 4 KiB pages. On a VM where a fault is dear this is much of a call's time (bench/HISTORY.md).
 */
export function freshMiB(pid) {
  return (Number(statFields(pid)[7]) * 4) / 1024;
}

/** Kernel clock ticks per second (USER_HZ: 100 on Linux everywhere that matters). */
const CLOCK_TICKS = 100;

/** Starts the server with `root` as its root; `call` times one tool call. */
export async function startServer(root, { args = [], nodeArgs = [], env } = {}) {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [...nodeArgs, BIN, '--root', root, '--log-level', 'error', ...args],
    stderr: 'ignore',
    ...(env ? { env: { ...process.env, ...env } } : {}),
  });
  const client = new Client({ name: 'exstruct-bench', version: '0' });
  const spawned = performance.now();
  await client.connect(transport);
  const handshakeMs = performance.now() - spawned;
  const pid = transport.pid;
  return {
    pid,
    /** From spawning the server to the end of the MCP handshake (initialize answered, initialized sent). */
    handshakeMs,
    async call(name, args) {
      const cpuBefore = cpuMs(pid);
      const freshBefore = freshMiB(pid);
      const started = performance.now();
      const result = await client.callTool({ name, arguments: args }, undefined, { timeout: 600_000 });
      const ms = performance.now() - started;
      if (result.isError) throw new Error(`${name} failed: ${result.content?.[0]?.text}`);
      return {
        ms,
        cpuMs: cpuMs(pid) - cpuBefore,
        freshMiB: freshMiB(pid) - freshBefore,
        text: result.content?.[0]?.text ?? '',
      };
    },
    /** The server's peak resident memory so far, in MB. */
    peakMb() {
      const status = readFileSync(`/proc/${pid}/status`, 'utf8');
      return Number(/VmHWM:\s+(\d+)/.exec(status)?.[1] ?? NaN) / 1024;
    },
    close: () => client.close(),
  };
}

/**
 * A server's first call of tool `name` with `args` and the same call again: their times, the memory
 * each touched for the first time, the server's peak after both, and the first answer's text.
 */
export async function firstAndAgain(server, name, args) {
  const first = await server.call(name, args);
  const again = await server.call(name, args);
  return {
    firstMs: first.ms,
    warmMs: again.ms,
    firstFreshMiB: first.freshMiB,
    warmFreshMiB: again.freshMiB,
    peakMb: server.peakMb(),
    firstText: first.text,
  };
}
