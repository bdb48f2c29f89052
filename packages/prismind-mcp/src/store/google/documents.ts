import type { docs_v1 } from '@googleapis/docs';
import { ToolError } from '@mcp-workbench/core/engine';
import type { CatalogEntry, ProjectConfig } from '../../model/types.js';
import type { DocumentStore, NewDocument, StoredDocument, WriteChange } from '../backend.js';
import { failureOf, isNotFound } from './api.js';
import { createFile, DOC_MIME, driveLiteral } from './drive.js';
import { docUrl, SOURCE_GOOGLE_DOCS } from './layout.js';
import { bodyEnd, documentMarkdown, endsWithEmptyParagraph, insertRequests } from './markdown-docs.js';
import type { GoogleTxn } from './txn.js';

/**
 * Documents as Google Docs in the project's Drive folders (Prismind/Projects/<name>/<folder>), created
 * directly in their folder. A document's id is its Docs id; its "content hash" is the Docs revision id,
 * so a person's edit is seen exactly, and every write names the revision it was made against
 * (writeControl.requiredRevisionId): an edit in between makes the write fail instead of being lost.
 */
export class GoogleDocuments implements DocumentStore {
  readonly source = SOURCE_GOOGLE_DOCS;
  readonly carriesFields = false;

  constructor(private readonly txn: GoogleTxn) {}

  private get api() {
    return this.txn.api;
  }

  async create(project: ProjectConfig, doc: NewDocument) {
    const folder = await this.txn.docFolder(project, doc.folder, true);
    const names = await this.namesIn(project, doc.folder);
    if (names.some((n) => n.normalize('NFC') === doc.file_name.normalize('NFC'))) {
      throw new ToolError(
        'ALREADY_EXISTS',
        `フォルダ「${doc.folder}」に「${doc.file_name}」が既にあります。`,
        {
          hint: 'Choose another name, or update the existing document with update_document.',
        },
      );
    }
    const file = await createFile(this.api, this.txn.ids, `creating document "${doc.file_name}"`, {
      name: doc.file_name,
      mimeType: DOC_MIME,
      parents: [folder!],
      appProperties: { prismindProject: project.project_id },
    });
    const id = file.id!;
    this.txn.saved(`Google Docs にドキュメント「${doc.file_name}」を作成しました（${docUrl(id)}）`);
    let revision: string;
    try {
      const result = await this.api.call(`writing document "${doc.file_name}"`, () =>
        this.api.docs.documents.batchUpdate({
          documentId: id,
          requestBody: { requests: insertRequests(doc.body, 1) },
        }),
      );
      revision = result.writeControl?.requiredRevisionId ?? '';
    } catch (error) {
      // An empty document helps nobody: take it back, so nothing is left half-made.
      await this.api
        .call('removing the empty document', () =>
          this.api.drive.files.delete({ fileId: id, supportsAllDrives: true }),
        )
        .then(() => this.txn.unsaved(id))
        .catch(() => undefined);
      throw error;
    }
    this.txn.rememberBody(id, doc.body);
    return { location: id, url: docUrl(id), content_hash: revision, doc_id: id };
  }

  private async fetch(id: string): Promise<docs_v1.Schema$Document | undefined> {
    const known = this.txn.docs.get(id);
    if (known) return known;
    try {
      const doc = await this.api.call('reading a document', () =>
        this.api.docs.documents.get({ documentId: id }),
      );
      this.txn.docs.set(id, doc);
      return doc;
    } catch (error) {
      if (isNotFound(error)) return undefined;
      throw error;
    }
  }

  async read(_project: ProjectConfig, entry: CatalogEntry): Promise<StoredDocument | undefined> {
    const doc = await this.fetch(entry.location || entry.doc_id);
    if (!doc) return undefined;
    const body = documentMarkdown(doc);
    return { body, content_hash: doc.revisionId ?? '' };
  }

  async write(project: ProjectConfig, entry: CatalogEntry, body: string, change?: WriteChange) {
    const id = entry.location || entry.doc_id;
    const doc = await this.fetch(id);
    if (!doc) {
      throw new ToolError('NOT_FOUND', `Google Docs のドキュメント ${id} が見つかりません。`, {
        hint: 'It was deleted or unshared in Drive; run sync_catalog to archive its catalog row.',
      });
    }
    const current = documentMarkdown(doc);
    if (change?.append === undefined && current === body) return { content_hash: doc.revisionId ?? '' };
    const end = bodyEnd(doc);
    let requests: docs_v1.Schema$Request[];
    if (change?.append !== undefined) {
      // Appended after what is there: a person's formatting, images and comments stay as they are.
      requests = endsWithEmptyParagraph(doc)
        ? insertRequests(change.append, end - 1)
        : [
            { insertText: { location: { index: end - 1 }, text: '\n' } },
            ...insertRequests(change.append, end),
          ];
    } else {
      requests = [
        ...(end - 1 > 1 ? [{ deleteContentRange: { range: { startIndex: 1, endIndex: end - 1 } } }] : []),
        ...insertRequests(body, 1),
      ];
    }
    let result: docs_v1.Schema$BatchUpdateDocumentResponse;
    try {
      result = await this.api.call(`writing document "${entry.name}"`, () =>
        this.api.docs.documents.batchUpdate({
          documentId: id,
          requestBody: { requests, writeControl: { requiredRevisionId: doc.revisionId ?? undefined } },
        }),
      );
    } catch (error) {
      const failure = failureOf(error);
      if (failure.status === 400 && /revision/i.test(failure.message)) {
        throw new ToolError(
          'CONFLICT',
          `ドキュメント「${entry.name}」は読み込んだ後に Google Docs 上で編集されました。上書きしませんでした。`,
          {
            hint: 'Read it again with get_document, merge your change, and call update_document again.',
            details: { doc_id: entry.doc_id },
          },
        );
      }
      throw error;
    }
    this.txn.docs.delete(id);
    this.txn.saved(`ドキュメント「${entry.name}」を更新しました（${docUrl(id)}）`);
    this.txn.rememberBody(id, body);
    void project;
    return { content_hash: result.writeControl?.requiredRevisionId ?? '' };
  }

  async scan() {
    // The catalog sheet is the master: see GoogleCatalog.syncFromMaster.
    return { documents: [] as { location: string; doc: StoredDocument }[], skipped: [] };
  }

  url(_project: ProjectConfig, entry: CatalogEntry): string {
    return docUrl(entry.location || entry.doc_id);
  }

  async namesIn(project: ProjectConfig, folder: string): Promise<string[]> {
    const id = await this.txn.docFolder(project, folder, false);
    if (!id) return [];
    const names: string[] = [];
    let pageToken: string | undefined;
    do {
      const page = await this.api.call(`listing folder "${folder}"`, () =>
        this.api.drive.files.list({
          q: `${driveLiteral(id)} in parents and trashed = false`,
          fields: 'nextPageToken,files(name)',
          pageSize: 1000,
          spaces: 'drive',
          supportsAllDrives: true,
          includeItemsFromAllDrives: true,
          ...(pageToken ? { pageToken } : {}),
        }),
      );
      for (const f of page.files ?? []) if (f.name) names.push(f.name);
      pageToken = page.nextPageToken ?? undefined;
    } while (pageToken);
    return names;
  }

  async ensureFolders(project: ProjectConfig, folders: string[]): Promise<string[]> {
    const created: string[] = [];
    for (const folder of folders) {
      if (await this.txn.docFolderCreated(project, folder)) created.push(folder);
    }
    return created;
  }
}
