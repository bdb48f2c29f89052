import path from 'node:path';
import { summaryOf } from './result.js';
import type { SessionFileStamp, SessionStore } from './store.js';
import type { ReviewSummary, SessionStatus, StoredSession } from './types.js';

/** What review_list shows of a session: a few hundred bytes, where the session itself can be megabytes. */
export interface ListedSession {
  resume_key: string;
  title: string;
  status: SessionStatus;
  root: string;
  working_path: string;
  /** As review_request takes them back: relative to root (absolute when root's path does not lead there). */
  files: string[];
  summary: ReviewSummary;
  startedAt: string;
  updatedAt: string;
  finalizedAt?: string;
}

export function listedOf(data: StoredSession): ListedSession {
  return {
    resume_key: data.resume_key,
    title: data.title,
    status: data.status,
    root: data.root,
    working_path: data.working_path,
    files: data.files.map((f) => requestPath(data, f.path)),
    summary: summaryOf(data),
    startedAt: data.startedAt,
    updatedAt: data.updatedAt,
    ...(data.finalizedAt ? { finalizedAt: data.finalizedAt } : {}),
  };
}

/**
 * A file changed this recently may change again within the same timestamp tick without its stat
 * changing (the same size, a reused inode): such a file is read again rather than trusted (git's "racy
 * clean" rule).
 */
const RACY_MS = 2_000;

interface Entry {
  stamp: string;
  /** Undefined for a file that could not be used (damaged): it is skipped until it changes. */
  listed: ListedSession | undefined;
}

/**
 * The stored sessions as review_list shows them, kept between calls (sessions are never pruned, and
 * reading and parsing each one at every call took ~1 s at 1,000 sessions). Every call still looks at the
 * folder, so a session another server process wrote is listed and a removed one is not; only a file whose
 * stat (inode, size, mtime, ctime) changed, or that changed within the last moments, is read again.
 */
export class StoredSessionIndex {
  private readonly entries = new Map<string, Entry>();

  constructor(private readonly store: SessionStore) {}

  /** `skip`: sessions the caller knows better than their files (those it holds in memory) are not read. */
  async list(skip: (key: string) => boolean): Promise<ListedSession[]> {
    const files = await this.store.sessionFiles();
    const present = new Set<string>();
    const listed: ListedSession[] = [];
    const racyBefore = BigInt(Date.now() - RACY_MS) * 1_000_000n;
    for (const file of files) {
      if (skip(file.key)) continue;
      present.add(file.key);
      let entry = this.entries.get(file.key);
      if (!entry || entry.stamp !== file.stamp || file.mtimeNs >= racyBefore) {
        entry = { stamp: file.stamp, listed: await this.read(file) };
        this.entries.set(file.key, entry);
      }
      if (entry.listed) listed.push(entry.listed);
    }
    for (const key of this.entries.keys()) if (!present.has(key)) this.entries.delete(key);
    return listed;
  }

  /**
   * A session this process held and wrote last, now let go of: what it holds is what the file says, so
   * the next list need not read it.
   */
  remember(session: StoredSession): void {
    const file = this.store.sessionFile(session.resume_key);
    if (file) this.entries.set(file.key, { stamp: file.stamp, listed: listedOf(session) });
  }

  private async read(file: SessionFileStamp): Promise<ListedSession | undefined> {
    try {
      const session = await this.store.load(file.key);
      return session && listedOf(session);
    } catch {
      return undefined; // a damaged file does not hide the others
    }
  }
}

/** A file as review_request accepts it: relative to the session's root, else its absolute path. */
function requestPath(data: Pick<StoredSession, 'root'>, file: string): string {
  const relative = path.relative(data.root, file);
  const inside = relative !== '' && !relative.startsWith('..') && !path.isAbsolute(relative);
  return inside ? relative : file;
}
