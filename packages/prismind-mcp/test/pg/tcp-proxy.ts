import net from 'node:net';
import type { AddressInfo } from 'node:net';

/**
 * A TCP proxy in front of the tests' PostgreSQL, to break the network under a server:
 * - `reset` cuts every connection at once (RST, as a router or a restarted load balancer does); new
 *   connections go through.
 * - `freeze` stops forwarding (a silent drop: no FIN, no RST); a side that closes meanwhile is not told
 *   to the other, so PostgreSQL keeps the session of a client that gave up. `freeze('answers')` drops
 *   only what PostgreSQL sends: the statements still arrive and run.
 * - `close`, then `listen`: a port where nothing answers that later leads to the server.
 */
export interface TestProxy {
  port: number;
  /** The URL with the proxy's port in place of the server's. */
  url(base: string): string;
  reset(): void;
  freeze(what?: 'both' | 'answers'): void;
  close(): Promise<void>;
  /** Listens again on the same port after close. */
  listen(): Promise<void>;
}

export async function startProxy(target: string, port = 0): Promise<TestProxy> {
  const to = new URL(target);
  const sockets = new Set<net.Socket>();
  let frozen: 'both' | 'answers' | undefined;
  const server = net.createServer((client) => {
    const upstream = net.connect(Number(to.port || 5432), to.hostname);
    for (const [from, into, answers] of [
      [client, upstream, false],
      [upstream, client, true],
    ] as const) {
      sockets.add(from);
      from.on('data', (data) => {
        if (!frozen || (frozen === 'answers' && !answers)) into.write(data);
      });
      const end = () => {
        sockets.delete(from);
        if (!frozen) into.destroy();
      };
      from.on('error', end);
      from.on('close', end);
    }
  });
  const listen = (on: number) =>
    new Promise<number>((resolve, reject) => {
      server.once('error', reject);
      server.listen(on, '127.0.0.1', () => resolve((server.address() as AddressInfo).port));
    });
  const bound = await listen(port);
  return {
    port: bound,
    url(base) {
      const u = new URL(base);
      u.port = String(bound);
      return u.href;
    },
    reset() {
      frozen = undefined;
      for (const socket of sockets) socket.resetAndDestroy();
    },
    freeze(what = 'both') {
      frozen = what;
    },
    async close() {
      frozen = undefined;
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
    async listen() {
      await listen(bound);
    },
  };
}

/** A loopback port where nothing listens (yet). */
export async function freePort(): Promise<number> {
  const probe = net.createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const { port } = probe.address() as AddressInfo;
  await new Promise<void>((resolve) => probe.close(() => resolve()));
  return port;
}
