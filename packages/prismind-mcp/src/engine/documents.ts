import { ToolError } from '@mcp-workbench/core/engine';
import { bodyOf, folderFor, normalizePhaseTask, procedureName } from '../model/documents.js';
import { safeName } from '../model/names.js';
import type { CatalogEntry } from '../model/types.js';
import { docTypeOf, oneOf, REFERENCE_TIMINGS, CATALOG_STATUSES } from '../model/vocab.js';
import { type StoredDocument, type Stores, type WriteChange } from '../store/backend.js';
import { extractKeywords } from '../text/keywords.js';
import { handFields, ignoredFieldsWarning } from './document-files.js';
import { checkSize, newId, nowIso, resolveProject, userOf, type Engine } from './engine.js';
import { refreshDocuments } from './freshness.js';
import { rememberServed, rememberUpdate, unreadChange } from './served-copies.js';
import { checkQuery } from './query.js';
import type { DocReference } from './sessions.js';

const KEYWORDS = 8;

function checkTiming(value: string | undefined): string {
  if (value === undefined || value === '') return '';
  return oneOf('reference_timing', value, REFERENCE_TIMINGS);
}

async function checkRelated(stores: Stores, ids: string[] | undefined): Promise<string[]> {
  const related = [...new Set(ids ?? [])];
  const missing: string[] = [];
  for (const id of related) if (!(await stores.catalog.get(id))) missing.push(id);
  if (missing.length > 0) {
    throw new ToolError('INVALID_ARGUMENT', `related_docs names unknown documents: ${missing.join(', ')}.`, {
      hint: 'Use doc_id values from search_catalog or create_document.',
      details: { field: 'related_docs', unknown: missing },
    });
  }
  return related;
}

export interface CreateDocumentInput {
  name: string;
  doc_type: string;
  content: string;
  phase_task: string;
  feature?: string | undefined;
  keywords?: string[] | undefined;
  reference_timing?: string | undefined;
  related_docs?: string[] | undefined;
  asset_type?: string | undefined;
  created_by?: string | undefined;
  project?: string | undefined;
}

export async function createDocument(engine: Engine, input: CreateDocumentInput) {
  const name = input.name.trim();
  if (!name) throw new ToolError('INVALID_ARGUMENT', 'name is empty.', { details: { field: 'name' } });
  const docType = docTypeOf(input.doc_type);
  const phaseTask = normalizePhaseTask(input.phase_task);
  if (!phaseTask)
    throw new ToolError('INVALID_ARGUMENT', 'phase_task is empty.', {
      hint: 'e.g. "P4-T01", "共通", "技術選定".',
    });
  const timing = checkTiming(input.reference_timing);
  if (!input.content.trim()) {
    throw new ToolError('INVALID_ARGUMENT', 'content is empty.', {
      hint: 'Give the document its Markdown body.',
      details: { field: 'content' },
    });
  }
  checkSize('content', input.content, engine.config.limits.max_document_bytes, 'limits.max_document_bytes');
  const feature = input.feature?.trim() ?? '';
  const given = input.keywords?.map((k) => k.trim()).filter(Boolean);
  const keywords =
    given && given.length > 0
      ? [...new Set(given)]
      : extractKeywords(input.content, KEYWORDS, `${name} ${feature}`);
  const body = bodyOf(name, input.content);
  return engine.backend.write(async (stores) => {
    const project = await resolveProject(engine, stores, input.project);
    const related = await checkRelated(stores, input.related_docs);
    const folder = folderFor(project, docType);
    await stores.documents.ensureFolders(project, [folder]);
    const fileName =
      (docType === '実装手順書'
        ? procedureName(
            phaseTask,
            feature || name,
            input.asset_type?.trim() || undefined,
            await stores.documents.namesIn(project, folder),
          )
        : undefined) ?? safeName(name, 'document');
    const at = nowIso(engine);
    const entry: CatalogEntry = {
      doc_id: newId('doc'),
      name,
      source: stores.documents.source ?? engine.backend.kind,
      doc_type: docType,
      project: project.project_id,
      phase_task: phaseTask,
      feature,
      reference_timing: timing,
      related_docs: related,
      keywords,
      updated_at: at,
      created_by: input.created_by?.trim() || userOf(engine),
      status: 'active',
      created_at: at,
      location: '',
      content_hash: '',
      keywords_generated: !(given && given.length > 0),
    };
    const created = await stores.documents.create(project, { entry, folder, file_name: fileName, body });
    const stored = {
      ...entry,
      doc_id: created.doc_id ?? entry.doc_id,
      location: created.location,
      content_hash: created.content_hash,
    };
    await stores.catalog.put(stored);
    await stores.search.indexDocument(stored, body);
    rememberServed(engine, stored.doc_id, stored.content_hash);
    return {
      success: true,
      doc_id: stored.doc_id,
      name,
      doc_url: created.url,
      source: stored.source,
      catalog_registered: true,
      file_name: fileName,
      keywords,
      message: `ドキュメント「${name}」を作成し、目録に登録しました（${stored.location}）。`,
    };
  });
}

/** The document as the reader sees it, with the catalog fields as metadata. */
function documentOf(entry: CatalogEntry, doc: StoredDocument, url: string) {
  return {
    doc_id: entry.doc_id,
    name: entry.name,
    doc_type: entry.doc_type,
    content: doc.body,
    source: entry.source,
    metadata: {
      project: entry.project,
      phase_task: entry.phase_task,
      feature: entry.feature,
      keywords: entry.keywords,
      reference_timing: entry.reference_timing,
      related_docs: entry.related_docs,
      status: entry.status,
      created_by: entry.created_by,
      created_at: entry.created_at,
      updated_at: entry.updated_at,
      content_hash: doc.content_hash,
      location: entry.location,
      url,
    },
  };
}

/** Catalog fields a person changed in the front matter (doc_id, project and location are not theirs to move). */
function editedFields(entry: CatalogEntry, doc: StoredDocument): Partial<CatalogEntry> {
  const { fields: next } = handFields(doc);
  const changed: Partial<CatalogEntry> = {};
  for (const [key, value] of Object.entries(next) as [keyof CatalogEntry, unknown][]) {
    if (JSON.stringify(entry[key]) !== JSON.stringify(value))
      (changed as Record<string, unknown>)[key] = value;
  }
  return changed;
}

/**
 * Reads a document and, if a person edited the file since the server last wrote or saw it (its hash
 * differs), takes the edit in: catalog fields from the front matter, 更新日, hash, search cache.
 */
async function readChecked(engine: Engine, docId: string) {
  const first = await engine.backend.read(async (stores) => {
    const entry = await stores.catalog.get(docId);
    if (!entry) return { entry };
    const project = await stores.projects.get(entry.project);
    const doc = project ? await stores.documents.read(project, entry) : undefined;
    return { entry, project, doc, url: project ? stores.documents.url(project, entry) : '' };
  });
  if (!first.entry) {
    throw new ToolError('NOT_FOUND', `ドキュメント '${docId}' は目録にありません。`, {
      hint: 'Find the doc_id with search_catalog (or get_document with query).',
      details: { doc_id: docId },
    });
  }
  if (!first.project) {
    throw new ToolError(
      'NOT_FOUND',
      `ドキュメント '${docId}' のプロジェクト '${first.entry.project}' は登録されていません。`,
      {
        hint: 'Set the project up again with setup_project (its data was kept).',
      },
    );
  }
  if (!first.doc) {
    throw new ToolError(
      'NOT_FOUND',
      `ドキュメント '${docId}' のファイル (${first.entry.location}) が見つかりません。`,
      {
        hint: 'The file was moved or deleted by hand; run sync_catalog to bring the catalog up to date.',
        details: { doc_id: docId, location: first.entry.location },
      },
    );
  }
  const { entry, doc, project } = first;
  const { ignored } = handFields(doc);
  const notice = ignored.length > 0 ? ignoredFieldsWarning(entry.location, ignored) : '';
  const edited = editedFields(entry, doc);
  if (doc.content_hash === entry.content_hash && Object.keys(edited).length === 0) {
    return { entry, doc, project, url: first.url, handEdited: false, notice };
  }
  // No hash yet (a catalog rebuilt from a master that does not carry it): first sight, not an edit.
  const firstSight = entry.content_hash === '' && Object.keys(edited).length === 0;
  const seen: CatalogEntry = {
    ...entry,
    ...edited,
    content_hash: doc.content_hash,
    updated_at: nowIso(engine),
  };
  if (entry.keywords_generated && doc.content_hash !== entry.content_hash && !edited.keywords) {
    seen.keywords = extractKeywords(doc.body, KEYWORDS, `${seen.name} ${seen.feature}`);
  }
  if (firstSight) seen.updated_at = entry.updated_at;
  // A read-only store shows the edit without recording it.
  if (!engine.backend.readOnly) {
    await engine.backend.write(async (stores) => {
      await stores.catalog.put(seen);
      await stores.search.indexDocument(seen, doc.body);
    });
  }
  return { entry: seen, doc, project, url: first.url, handEdited: !firstSight, notice };
}

export interface GetDocumentInput {
  query?: string | undefined;
  doc_id?: string | undefined;
  doc_type?: string | undefined;
  phase_task?: string | undefined;
}

const CANDIDATES = 10;

export async function getDocument(engine: Engine, input: GetDocumentInput) {
  if (input.doc_id) {
    const read = await readChecked(engine, input.doc_id.trim());
    rememberServed(engine, read.entry.doc_id, read.doc.content_hash);
    return {
      found: true,
      document: documentOf(read.entry, read.doc, read.url),
      candidates: [] as DocReference[],
      message:
        (read.handEdited
          ? `ドキュメント「${read.entry.name}」を取得しました（手動の編集を検出し、目録に反映しました）。`
          : `ドキュメント「${read.entry.name}」を取得しました。`) + read.notice,
    };
  }
  const query = input.query?.trim();
  if (!query) {
    throw new ToolError('INVALID_ARGUMENT', 'query か doc_id を指定してください。', {
      hint: 'Pass doc_id (from search_catalog) or a query such as "WeaponSystem刷新の実装手順書".',
    });
  }
  checkQuery(query);
  const docType = input.doc_type ? docTypeOf(input.doc_type) : undefined;
  const phaseTask = input.phase_task ? normalizePhaseTask(input.phase_task) : undefined;
  const current = await engine.backend.read(
    async (stores) =>
      engine.active?.project ?? (await stores.projects.getCurrent(userOf(engine)))?.project_id,
  );
  await refreshDocuments(engine, current);
  const search = await engine.backend.read(async (stores) => {
    return stores.search.searchCatalog({
      query,
      ...(current ? { project: current } : {}),
      ...(docType ? { doc_type: docType } : {}),
      ...(phaseTask ? { phase_task: phaseTask } : {}),
      status: 'active',
      limit: CANDIDATES,
    });
  });
  // Entries containing every term are the matches; the rest are only near candidates.
  const strong = search.items.filter((e) => e.all_terms);
  const wanted = query.normalize('NFKC').toLowerCase();
  const exact = strong.filter((e) => e.name.normalize('NFKC').toLowerCase() === wanted);
  const pick = exact.length === 1 ? exact[0] : strong.length === 1 ? strong[0] : undefined;
  if (pick) {
    const read = await readChecked(engine, pick.doc_id);
    rememberServed(engine, read.entry.doc_id, read.doc.content_hash);
    return {
      found: true,
      document: documentOf(read.entry, read.doc, read.url),
      candidates: [] as DocReference[],
      message: `「${query}」に該当するドキュメント「${read.entry.name}」を取得しました。${read.notice}`,
    };
  }
  const reasons = (e: (typeof search.items)[number]) =>
    `${e.doc_type} / ${e.phase_task}${e.feature ? ` / ${e.feature}` : ''}（関連度 ${Math.round(e.relevance_score * 100)}%）`;
  if (strong.length > 1) {
    return {
      found: false,
      candidates: strong.map((e) => ({ name: e.name, doc_id: e.doc_id, reason: reasons(e) })),
      message: `「${query}」に該当するドキュメントが${strong.length}件あります。doc_id を指定して get_document を呼んでください。`,
    };
  }
  return {
    found: false,
    candidates: search.items.map((e) => ({
      name: e.name,
      doc_id: e.doc_id,
      reason: `近い候補: ${reasons(e)}`,
    })),
    message:
      `「${query}」に該当するドキュメントは見つかりませんでした。` +
      (search.items.length > 0
        ? '近い候補を candidates に示しました。'
        : 'search_catalog で条件を変えて探すか、create_document で作成してください。'),
  };
}

export interface UpdateDocumentInput {
  doc_id: string;
  content?: string | undefined;
  append?: boolean | undefined;
  metadata?: Record<string, unknown> | undefined;
  expected_hash?: string | undefined;
}

const METADATA_KEYS = [
  'name',
  'phase_task',
  'feature',
  'keywords',
  'reference_timing',
  'related_docs',
  'status',
  'created_by',
] as const;

export async function updateDocument(engine: Engine, input: UpdateDocumentInput) {
  const meta = input.metadata ?? {};
  const unknown = Object.keys(meta).filter((k) => !(METADATA_KEYS as readonly string[]).includes(k));
  if (unknown.length > 0) {
    throw new ToolError(
      'INVALID_ARGUMENT',
      `metadata has keys that cannot be updated: ${unknown.join(', ')}.`,
      {
        hint: `Updatable: ${METADATA_KEYS.join(', ')}. To change doc_type, create a new document.`,
        details: { field: 'metadata', unknown },
      },
    );
  }
  if (input.content === undefined && Object.keys(meta).length === 0) {
    throw new ToolError('INVALID_ARGUMENT', 'Nothing to update: give content and/or metadata.');
  }
  if (input.content !== undefined && !input.content.trim()) {
    // An empty content would wipe the body; leaving it out is how a caller keeps it.
    throw new ToolError('INVALID_ARGUMENT', 'content is empty: it would erase the document body.', {
      hint: 'Omit content to keep the body (e.g. to change only metadata); to empty a document, archive it with metadata.status="archived".',
      details: { field: 'content' },
    });
  }
  if (input.content !== undefined)
    checkSize('content', input.content, engine.config.limits.max_document_bytes, 'limits.max_document_bytes');
  const strings = (key: string): string[] | undefined => {
    const value = meta[key];
    if (value === undefined) return undefined;
    if (!Array.isArray(value) || value.some((v) => typeof v !== 'string')) {
      throw new ToolError('INVALID_ARGUMENT', `metadata.${key} must be a list of strings.`, {
        details: { field: `metadata.${key}` },
      });
    }
    return value as string[];
  };
  const text = (key: string): string | undefined => {
    const value = meta[key];
    if (value === undefined) return undefined;
    if (typeof value !== 'string')
      throw new ToolError('INVALID_ARGUMENT', `metadata.${key} must be a string.`, {
        details: { field: `metadata.${key}` },
      });
    return value.trim();
  };
  return engine.backend.write(async (stores) => {
    const entry = await stores.catalog.get(input.doc_id);
    if (!entry) {
      throw new ToolError('NOT_FOUND', `ドキュメント '${input.doc_id}' は目録にありません。`, {
        hint: 'Find the doc_id with search_catalog.',
        details: { doc_id: input.doc_id },
      });
    }
    const project = await stores.projects.get(entry.project);
    if (!project) throw new ToolError('NOT_FOUND', `プロジェクト '${entry.project}' は登録されていません。`);
    const doc = await stores.documents.read(project, entry);
    if (!doc) {
      throw new ToolError(
        'NOT_FOUND',
        `ドキュメント '${input.doc_id}' のファイル (${entry.location}) が見つかりません。`,
        {
          hint: 'Run sync_catalog to bring the catalog up to date.',
        },
      );
    }
    // The front matter a person edited by hand is theirs too: content_hash covers the body only (the
    // same on every backend), so its fields are compared with the catalog's. Generated keywords are the
    // server's: get_document makes new ones for an edited body and the file keeps the old list.
    const edited = editedFields(entry, doc);
    const { ignored } = handFields(doc);
    if (entry.keywords_generated) delete edited.keywords;
    const frontMatterEdited = Object.keys(edited).length > 0;
    const write = {
      replace: input.content !== undefined && !input.append,
      expected_hash: input.expected_hash,
    };
    const handEdited =
      frontMatterEdited ||
      (input.expected_hash === undefined &&
        entry.content_hash !== '' &&
        doc.content_hash !== entry.content_hash);
    const readHash = handEdited ? undefined : unreadChange(engine, entry.doc_id, doc.content_hash, write);
    if (
      handEdited ||
      readHash !== undefined ||
      (input.expected_hash !== undefined && input.expected_hash !== doc.content_hash)
    ) {
      throw new ToolError(
        'CONFLICT',
        handEdited
          ? `ドキュメント「${entry.name}」はファイルが手動で編集されていて、その内容はまだ読まれていません。上書きしませんでした。`
          : readHash !== undefined
            ? `ドキュメント「${entry.name}」はこのサーバーで読まれた後に変更されています。置き換えると、その変更が失われるため上書きしませんでした。`
            : `ドキュメント「${entry.name}」は expected_hash の後に変更されています。`,
        {
          hint: 'Read it with get_document, merge your change into what is there, and call update_document again with expected_hash set to metadata.content_hash.',
          details: {
            doc_id: entry.doc_id,
            current_hash: doc.content_hash,
            ...(input.expected_hash
              ? { expected_hash: input.expected_hash }
              : readHash !== undefined
                ? { read_hash: readHash }
                : { catalog_hash: entry.content_hash }),
          },
        },
      );
    }
    const updated: string[] = [];
    const next: CatalogEntry = { ...entry };
    let body = doc.body;
    let change: WriteChange | undefined;
    if (input.content !== undefined) {
      const added = input.content.replace(/\r\n/g, '\n').trimEnd();
      body = input.append ? `${doc.body.trimEnd()}\n\n${added}\n` : bodyOf(entry.name, input.content);
      if (input.append && added) change = { append: `${added}\n` };
      // An append is checked on what the document becomes, not only on what it adds.
      if (input.append)
        checkSize(
          'content after the append',
          body,
          engine.config.limits.max_document_bytes,
          'limits.max_document_bytes',
        );
      if (body !== doc.body) updated.push('content');
    }
    const name = text('name');
    if (name) next.name = name;
    const phaseTask = text('phase_task');
    if (phaseTask) next.phase_task = normalizePhaseTask(phaseTask);
    const feature = text('feature');
    if (feature !== undefined) next.feature = feature;
    const timing = text('reference_timing');
    if (timing !== undefined) next.reference_timing = checkTiming(timing);
    const status = text('status');
    if (status !== undefined) next.status = oneOf('status', status, CATALOG_STATUSES);
    const createdBy = text('created_by');
    if (createdBy !== undefined) next.created_by = createdBy;
    const related = strings('related_docs');
    if (related) next.related_docs = await checkRelated(stores, related);
    const keywords = strings('keywords');
    if (keywords) {
      next.keywords = [...new Set(keywords.map((k) => k.trim()).filter(Boolean))];
      next.keywords_generated = false;
    } else if (entry.keywords_generated && updated.includes('content')) {
      next.keywords = extractKeywords(body, KEYWORDS, `${next.name} ${next.feature}`);
    }
    for (const key of [
      'name',
      'phase_task',
      'feature',
      'reference_timing',
      'status',
      'created_by',
      'related_docs',
      'keywords',
    ] as const) {
      if (JSON.stringify(next[key]) !== JSON.stringify(entry[key])) updated.push(key);
    }
    if (updated.length === 0) {
      rememberUpdate(engine, entry.doc_id, doc.content_hash, doc.content_hash, write);
      return {
        success: true,
        doc_id: entry.doc_id,
        updated_fields: [],
        content_hash: doc.content_hash,
        message: '変更はありません。',
      };
    }
    next.updated_at = nowIso(engine);
    const written = await stores.documents.write(
      project,
      next,
      body,
      updated.includes('content') ? change : undefined,
    );
    next.content_hash = written.content_hash;
    await stores.catalog.put(next);
    await stores.search.indexDocument(next, body);
    rememberUpdate(engine, entry.doc_id, doc.content_hash, written.content_hash, write);
    return {
      success: true,
      doc_id: entry.doc_id,
      updated_fields: updated,
      content_hash: written.content_hash,
      message:
        `ドキュメント「${next.name}」を更新し、目録の更新日を更新しました（${updated.join(', ')}）。` +
        (ignored.length > 0
          ? `front matter の使えない値（${ignored.map((f) => `${f.field}: ${f.value}`).join('、')}）は目録の値で書き直しました。`
          : ''),
    };
  });
}
