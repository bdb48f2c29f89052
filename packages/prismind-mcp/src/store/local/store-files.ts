import {
  closeSync,
  constants,
  fstatSync,
  lstatSync,
  mkdirSync,
  openSync,
  readdirSync,
  readSync,
  realpathSync,
  type Stats,
} from 'node:fs';
import path from 'node:path';
import { ToolError } from '@mcp-workbench/core/engine';

/** Reading flags: never follow a final link, never block on a FIFO while opening. */
const READ_NO_FOLLOW = constants.O_RDONLY | constants.O_NONBLOCK | (constants.O_NOFOLLOW ?? 0);

/** Strict: throws on bytes that are not UTF-8; keeps a BOM (front-matter.ts strips it). */
const UTF8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

/** Folders the store makes: the owner's only (files are 0600, see staged-files.ts). */
export const DIR_MODE = 0o700;

/**
 * Room for the front matter above the size limit of a document's body: a file the server wrote at the
 * limit must still read, a 100 MB file dropped in by hand must not.
 */
export const FRONT_MATTER_ROOM = 256 * 1024;

/** Why a file of the store is not read. */
export type Refusal = 'link' | 'special' | 'too-large' | 'not-utf8' | 'denied';

export interface RefusedFile {
  location: string;
  reason: Refusal;
  /** What the answer says about it. */
  message: string;
}

function code(error: unknown): string | undefined {
  const value = (error as { code?: unknown } | null)?.code;
  return typeof value === 'string' ? value : undefined;
}

export function refusalMessage(location: string, reason: Refusal, maxBytes: number): string {
  if (reason === 'link')
    return `${location} はシンボリックリンクです。ストアのファイルはリンクをたどって開きません。`;
  if (reason === 'special')
    return `${location} は通常のファイルではありません（名前付きパイプ、デバイスなど）。読みませんでした。`;
  if (reason === 'denied') return `${location} は --root の外か --deny-glob に当たるため、読みませんでした。`;
  if (reason === 'not-utf8')
    return `${location} は UTF-8 ではありません（Shift_JIS など）。書き換えず、索引もしていません。UTF-8 で保存し直してください。`;
  return `${location} は ${maxBytes} バイト（limits.max_document_bytes と front matter の余裕）を超えるため、索引していません。`;
}

/** The ToolError a refused file gives a tool that asked for exactly that file. */
export function refusalError(refused: RefusedFile): ToolError {
  const codeOf = {
    link: 'PATH_OUTSIDE_ROOT',
    special: 'UNSUPPORTED_FORMAT',
    'too-large': 'LIMIT_EXCEEDED',
    'not-utf8': 'UNSUPPORTED_FORMAT',
    denied: 'PATH_OUTSIDE_ROOT',
  };
  return new ToolError(codeOf[refused.reason], refused.message, {
    hint:
      refused.reason === 'too-large'
        ? 'Split the file into several documents, or raise limits.max_document_bytes.'
        : refused.reason === 'not-utf8'
          ? 'Save the file as UTF-8 (its bytes are left as they are until then).'
          : 'Replace it with a regular Markdown file inside the store folder, or remove it.',
    details: { location: refused.location, reason: refused.reason },
  });
}

/**
 * The store folder's own files, opened the way core's path policy opens files: no link is followed
 * anywhere below the store folder, only regular files are read (checked on the opened handle; a FIFO
 * does not block the open), and a file over the size limit is refused before it is read. `root` is the
 * store folder's real path.
 */
export class StoreFiles {
  constructor(
    readonly root: string,
    private readonly maxBytes: number,
    /** Whether the server may touch this path (--root / --deny-glob; see confinement.ts). */
    readonly permits: (file: string) => boolean = () => true,
  ) {}

  /** The largest document file read (bytes): the body's limit plus room for the front matter. */
  get limit(): number {
    return this.maxBytes + FRONT_MATTER_ROOM;
  }

  /** Names below the store folder (`Projects/<folder>/設計書/x.md` → its parts). */
  private parts(relative: string): string[] {
    return relative.split(/[\\/]/).filter((p) => p !== '' && p !== '.');
  }

  /**
   * A document file's text: undefined when there is no file, a refusal when it is a link (the file or a
   * folder on the way), a special file or too large. As core's path policy opens a file where it cannot
   * walk descriptors: the final name opened with O_NOFOLLOW (and O_NONBLOCK: a FIFO does not block),
   * the kind and size judged on the opened handle, and the file's real path checked to be the path asked
   * for (a linked folder on the way makes them differ). Synchronous: a first search reads thousands.
   */
  readText(
    relative: string,
    location: string,
  ): { text: string; stats: Stats } | { refused: RefusedFile } | undefined {
    const limit = this.limit;
    const refuse = (reason: Refusal) => ({
      refused: { location, reason, message: refusalMessage(location, reason, limit) },
    });
    const file = path.join(this.root, ...this.parts(relative));
    if (!this.permits(file)) return refuse('denied');
    let fd: number;
    try {
      fd = openSync(file, READ_NO_FOLLOW);
    } catch (error) {
      const reason = code(error);
      if (reason === 'ENOENT') {
        const spelled = this.spelled(relative);
        return spelled === relative ? undefined : this.readText(spelled, location);
      }
      if (reason === 'ELOOP' || reason === 'ENOTDIR' || reason === 'EMLINK') return refuse('link');
      throw error;
    }
    try {
      const stats = fstatSync(fd);
      if (!stats.isFile()) return refuse('special');
      if (realpathSync.native(file).normalize('NFC') !== file.normalize('NFC')) return refuse('link');
      if (stats.size > limit) return refuse('too-large');
      // One byte more than the limit: a file that grew since fstat is still refused, never read whole.
      const buffer = Buffer.allocUnsafe(Math.min(stats.size, limit) + 1);
      let length = 0;
      for (let read = -1; read !== 0 && length < buffer.length; length += read)
        read = readSync(fd, buffer, length, buffer.length - length, length);
      if (length > limit) return refuse('too-large');
      // Decoding bytes that are not UTF-8 would turn them into U+FFFD, and a rewrite would then destroy
      // the file (a Shift_JIS file added by hand): such a file is refused, never read.
      let text: string;
      try {
        text = UTF8.decode(buffer.subarray(0, length));
      } catch {
        return refuse('not-utf8');
      }
      return { text, stats };
    } finally {
      closeSync(fd);
    }
  }

  /**
   * Makes sure the folder exists and that no name on the way is a link (created 0700 where missing);
   * a write into it then lands inside the store. Throws PATH_OUTSIDE_ROOT otherwise. `checked` keeps
   * the folders already checked in this transaction (a bulk load writes hundreds into one folder).
   */
  ensureDir(relative: string, checked?: Set<string>): void {
    const parts = this.parts(relative);
    let here = this.root;
    let key = '';
    for (const part of parts) {
      here = path.join(here, part);
      key = key ? `${key}/${part}` : part;
      if (checked?.has(key)) continue;
      let info = lstatSync(here, { throwIfNoEntry: false });
      if (!info) {
        try {
          mkdirSync(here, { mode: DIR_MODE });
        } catch (error) {
          if (code(error) !== 'EEXIST') throw error;
        }
        info = lstatSync(here);
      }
      if (!info.isDirectory()) {
        throw new ToolError(
          'PATH_OUTSIDE_ROOT',
          `${key} は通常のフォルダではありません（シンボリックリンクなど）。ストアはリンクをたどって書きません。`,
          {
            hint: 'Replace the link with a real folder inside the store folder.',
            details: { location: key },
          },
        );
      }
      checked?.add(key);
    }
  }

  /** Whether a folder exists as a real folder (not a link). */
  isDir(relative: string): boolean {
    try {
      return lstatSync(path.join(this.root, relative)).isDirectory();
    } catch {
      return false;
    }
  }

  /** lstat of a file below the store folder (never follows a link), or undefined. */
  /**
   * How a path is spelled on disk. Locations are NFC, but a file copied from macOS has NFD names, which
   * Linux keeps as they are: the path itself when it exists, else each missing name matched by its NFC
   * form against its folder's entries (only names that have another form are looked up).
   */
  spelled(relative: string): string {
    if (this.lstat(relative)) return relative;
    let dir = this.root;
    const names: string[] = [];
    for (const part of this.parts(relative)) {
      let name = part;
      const nfc = part.normalize('NFC');
      if (part.normalize('NFD') !== nfc && !lstatSync(path.join(dir, part), { throwIfNoEntry: false })) {
        try {
          name = readdirSync(dir).find((entry) => entry.normalize('NFC') === nfc) ?? part;
        } catch {
          // a folder that is not there: the path stays as asked
        }
      }
      names.push(name);
      dir = path.join(dir, name);
    }
    return names.join('/');
  }

  lstat(relative: string): Stats | undefined {
    try {
      return lstatSync(path.join(this.root, relative));
    } catch {
      return undefined;
    }
  }

  /**
   * The Markdown files below a folder (relative to it, `/`-separated, NFC), without entering linked
   * folders; links and special files named *.md are listed apart.
   */
  listMarkdown(relativeDir: string): { files: string[]; others: { location: string; reason: Refusal }[] } {
    const files: string[] = [];
    const others: { location: string; reason: Refusal }[] = [];
    const dir = path.join(this.root, relativeDir);
    if (!this.isDir(relativeDir)) return { files, others };
    const walk = (sub: string) => {
      let entries;
      try {
        entries = readdirSync(path.join(dir, sub), { withFileTypes: true });
      } catch (error) {
        if (code(error) === 'ENOENT' || code(error) === 'ENOTDIR') return;
        throw error;
      }
      for (const entry of entries) {
        if (entry.name.startsWith('.')) continue;
        const location = (sub ? `${sub}/${entry.name}` : entry.name).normalize('NFC');
        if (entry.isDirectory()) walk(sub ? `${sub}/${entry.name}` : entry.name);
        else if (!entry.name.endsWith('.md')) continue;
        else if (entry.isFile()) files.push(location);
        else others.push({ location, reason: entry.isSymbolicLink() ? 'link' : 'special' });
      }
    };
    walk('');
    return { files, others };
  }
}
