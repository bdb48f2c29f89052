import { parseArgs } from 'node:util';
import { defaultHome } from './review/home.js';
import { parseLock, processAlive } from './review/ownership.js';
import { SessionStore } from './review/store.js';

export interface ReviewLink {
  resume_key: string;
  title: string;
  status: string;
  url: string;
}

/**
 * The person's links of the reviews that server processes of this user serve right now, read from the
 * sessions' lock files. This is how a person who sees no window (SSH, a headless machine, a client
 * that shows no link) gets the link the agent is never given.
 */
export async function reviewLinks(home: string): Promise<ReviewLink[]> {
  const store = new SessionStore(home);
  const links: ReviewLink[] = [];
  for (const { key, text } of await store.locks()) {
    const lock = parseLock(text);
    if (!lock || !processAlive(lock.pid)) continue;
    const session = await store.load(key).catch(() => undefined);
    links.push({
      resume_key: key,
      title: session?.title ?? key,
      status: session?.status ?? 'open',
      url: `http://127.0.0.1:${lock.port}/review/${encodeURIComponent(key)}#token=${lock.token}`,
    });
  }
  return links;
}

const USAGE = 'usage: md-review-mcp link [--home <dir>] [resume_key]';

/** `md-review-mcp link`: prints the links for the person at a terminal; returns the exit code. */
export async function linkCommand(
  argv: readonly string[],
  env: NodeJS.ProcessEnv,
  out: (line: string) => void,
): Promise<number> {
  let parsed;
  try {
    parsed = parseArgs({
      args: [...argv],
      options: { home: { type: 'string' }, help: { type: 'boolean', short: 'h' } },
      allowPositionals: true,
    });
  } catch (error) {
    out(`${(error as Error).message}\n${USAGE}`);
    return 2;
  }
  if (parsed.values.help) {
    out(`${USAGE}\nPrints the links (with your key) of the reviews md-review-mcp serves on this machine.`);
    return 0;
  }
  const home = parsed.values.home ?? defaultHome(env);
  const wanted = parsed.positionals[0];
  const links = (await reviewLinks(home)).filter((link) => !wanted || link.resume_key === wanted);
  if (links.length === 0) {
    out(`No review is being served on this machine${wanted ? ` for ${wanted}` : ''} (sessions in ${home}).`);
    return 1;
  }
  for (const link of links) out(`"${link.title}" (${link.status}, ${link.resume_key})\n  ${link.url}`);
  const port = new URL(links[0]!.url).port;
  out(
    `\nOpen a link in a browser on this machine. From another machine, forward its port first:\n` +
      `  ssh -L ${port}:127.0.0.1:${port} <this host>   (then open the link there)`,
  );
  return 0;
}
