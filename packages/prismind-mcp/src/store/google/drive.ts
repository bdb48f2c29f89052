import type { drive_v3 } from '@googleapis/drive';
import { ToolError } from '@mcp-workbench/core/engine';
import { isNotFound, type GoogleApi } from './api.js';
import type { RemoteCache } from './cache.js';

export const FOLDER_MIME = 'application/vnd.google-apps.folder';
export const DOC_MIME = 'application/vnd.google-apps.document';
export const SHEET_MIME = 'application/vnd.google-apps.spreadsheet';

/** A string literal inside a Drive query: backslash and quote escaped (names like "Bob's 設計\"). */
export function driveLiteral(value: string): string {
  return `'${value.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'`;
}

/**
 * Ids for new files, asked of Drive ahead of time (files.generateIds): a create sent again after a lost
 * answer then fails with 409 instead of making a second file.
 */
export class IdPool {
  private ids: string[] = [];
  constructor(private readonly api: GoogleApi) {}

  async next(): Promise<string> {
    if (this.ids.length === 0) {
      const result = await this.api.call('reserving file ids', () =>
        this.api.drive.files.generateIds({ count: 10, space: 'drive', type: 'files' }),
      );
      this.ids = [...(result.ids ?? [])];
    }
    const id = this.ids.shift();
    if (!id) throw new ToolError('BACKEND_UNAVAILABLE', 'Drive gave no file ids.');
    return id;
  }
}

/**
 * Creates a file with a reserved id; a retry whose first attempt went through gets 409 and the file is
 * the one made before.
 */
export async function createFile(
  api: GoogleApi,
  ids: IdPool,
  what: string,
  body: drive_v3.Schema$File,
  fields = 'id,name,createdTime',
): Promise<drive_v3.Schema$File> {
  const id = await ids.next();
  try {
    return await api.call(what, () =>
      api.drive.files.create({ requestBody: { ...body, id }, fields, supportsAllDrives: true }),
    );
  } catch (error) {
    if ((error as { response?: { status?: number } }).response?.status !== 409) throw error;
    return api.call(what, () => api.drive.files.get({ fileId: id, fields, supportsAllDrives: true }));
  }
}

interface FolderEntry {
  id: string;
  createdTime: string;
}

/** Oldest first, then by id: every process picks the same folder among duplicates. */
function byAge(a: FolderEntry, b: FolderEntry): number {
  return a.createdTime.localeCompare(b.createdTime) || a.id.localeCompare(b.id);
}

/**
 * Finds or creates folders by name under a parent, idempotently. Found ids are cached (local store);
 * before a create the folder is looked up again; after it, the parent is listed once more, and if
 * another process made the same folder meanwhile, everyone keeps the oldest and the newer one is
 * removed by the process that made it (it is still empty). Running setup twice, or from two processes
 * or machines at once, leaves one folder.
 */
export class Folders {
  constructor(
    private readonly api: GoogleApi,
    private readonly cache: RemoteCache,
    private readonly ids: IdPool,
  ) {}

  private async list(parent: string, name: string): Promise<FolderEntry[]> {
    const result = await this.api.call(`looking up folder "${name}"`, () =>
      this.api.drive.files.list({
        q: `name = ${driveLiteral(name)} and ${driveLiteral(parent)} in parents and mimeType = '${FOLDER_MIME}' and trashed = false`,
        fields: 'files(id,createdTime)',
        pageSize: 100,
        spaces: 'drive',
        supportsAllDrives: true,
        includeItemsFromAllDrives: true,
      }),
    );
    return (result.files ?? [])
      .filter((f): f is { id: string; createdTime: string } => !!f.id)
      .map((f) => ({ id: f.id, createdTime: f.createdTime ?? '' }))
      .sort(byAge);
  }

  /** The folder's id, or undefined when it does not exist and `create` is false. */
  async child(
    parent: string,
    name: string,
    create: boolean,
  ): Promise<{ id: string; created: boolean } | undefined> {
    const key = `${parent}/${name}`;
    const cached = this.cache.get('folder', key);
    if (cached) return { id: cached, created: false };
    const found = await this.list(parent, name);
    if (found[0]) {
      this.cache.set('folder', key, found[0].id);
      return { id: found[0].id, created: false };
    }
    if (!create) return undefined;
    let made: drive_v3.Schema$File;
    try {
      made = await createFile(this.api, this.ids, `creating folder "${name}"`, {
        name,
        mimeType: FOLDER_MIME,
        parents: [parent],
      });
    } catch (error) {
      if (isNotFound(error)) {
        throw new ToolError(
          'NOT_FOUND',
          `Drive のフォルダ ${parent} が見つかりません（「${name}」を作れませんでした）。`,
          {
            hint: 'Check root_folder_id (update_project), and that the folder is shared with the account Prismind uses.',
            details: { folder_id: parent },
          },
        );
      }
      throw error;
    }
    const all = await this.list(parent, name);
    const winner = all[0] ?? { id: made.id!, createdTime: '' };
    if (winner.id !== made.id) {
      // Another process made it first: ours is empty and unknown to anyone; remove it.
      await this.api
        .call(`removing duplicate folder "${name}"`, () =>
          this.api.drive.files.delete({ fileId: made.id!, supportsAllDrives: true }),
        )
        .catch(() => undefined);
    }
    this.cache.set('folder', key, winner.id);
    return { id: winner.id, created: winner.id === made.id };
  }

  /** Walks (and makes, when `create`) a path of folder names; returns the last id and the names made. */
  async path(
    root: string,
    names: string[],
    create: boolean,
  ): Promise<{ id: string; created: string[] } | undefined> {
    let id = root;
    const created: string[] = [];
    for (const name of names) {
      const next = await this.child(id, name, create);
      if (!next) return undefined;
      if (next.created) created.push(name);
      id = next.id;
    }
    return { id, created };
  }

  /** Forgets a cached id that turned out to be gone (trashed or deleted by a person). */
  forget(parent: string, name: string): void {
    this.cache.delete('folder', `${parent}/${name}`);
  }
}
