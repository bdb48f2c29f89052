import { ToolError } from '@mcp-workbench/core/engine';
import type { KnowledgeEntry } from '../model/types.js';
import { extractKeywords } from '../text/keywords.js';
import { checkQuery, foundMessage } from './query.js';
import { checkProjectId, checkSize, newId, nowIso, projectNotFound, type Engine } from './engine.js';

const TAGS = 5;

export interface AddKnowledgeInput {
  content: string;
  category: string;
  project?: string | undefined;
  tags?: string[] | undefined;
  source?: string | undefined;
}

export async function addKnowledge(engine: Engine, input: AddKnowledgeInput) {
  const content = input.content.trim();
  if (!content)
    throw new ToolError('INVALID_ARGUMENT', 'content is empty.', { details: { field: 'content' } });
  const category = input.category.trim();
  if (!category) {
    throw new ToolError('INVALID_ARGUMENT', 'category is empty.', {
      hint: 'e.g. 問題解決, 技術Tips, ベストプラクティス, 落とし穴.',
    });
  }
  checkSize('content', content, engine.config.limits.max_knowledge_bytes, 'limits.max_knowledge_bytes');
  if (input.project) checkProjectId(input.project);
  const given = input.tags?.map((t) => t.trim()).filter(Boolean);
  const tags = given && given.length > 0 ? [...new Set(given)] : extractKeywords(content, TAGS);
  return engine.backend.write(async (stores) => {
    let project: string | null = null;
    if (input.project) {
      const config = await stores.projects.get(input.project);
      if (!config) throw projectNotFound(input.project);
      project = config.project_id;
    }
    const entry: KnowledgeEntry = {
      knowledge_id: newId('kn'),
      content,
      category,
      project,
      tags,
      source: input.source?.trim() ?? '',
      created_at: nowIso(engine),
    };
    await stores.search.addKnowledge(entry);
    return {
      success: true,
      knowledge_id: entry.knowledge_id,
      tags,
      message: `知見を登録しました${given && given.length > 0 ? '' : '（タグは自動生成）'}。`,
    };
  });
}

export interface SearchKnowledgeInput {
  query: string;
  category?: string | undefined;
  project?: string | undefined;
  tags?: string[] | undefined;
  limit?: number | undefined;
}

export async function searchKnowledge(engine: Engine, input: SearchKnowledgeInput) {
  const query = input.query.trim();
  if (!query) throw new ToolError('INVALID_ARGUMENT', 'query is empty.', { details: { field: 'query' } });
  const warnings = checkQuery(query);
  if (input.project) checkProjectId(input.project);
  const result = await engine.backend.read(async (stores) => {
    let project: string | undefined;
    if (input.project) {
      const config = await stores.projects.get(input.project);
      // Knowledge of a deleted project is still there: filter by the id as given.
      project = config?.project_id ?? input.project;
    }
    return stores.search.searchKnowledge({
      query,
      ...(input.category?.trim() ? { category: input.category.trim() } : {}),
      ...(project ? { project } : {}),
      ...(input.tags?.length ? { tags: input.tags } : {}),
      limit: input.limit ?? 5,
    });
  });
  const near = result.items.filter((k) => !k.all_terms).length;
  const shown = result.items.length - near;
  return {
    success: true,
    total_count: result.total_count,
    knowledge: result.items.map(({ all_terms: _all, ...k }) => k),
    ...(warnings.length + result.warnings.length > 0 ? { warnings: [...warnings, ...result.warnings] } : {}),
    message: foundMessage(query, '知見', result.total_count, shown, near),
  };
}

export interface UpdateKnowledgeInput {
  knowledge_id: string;
  content?: string | undefined;
  category?: string | undefined;
  tags?: string[] | undefined;
  source?: string | undefined;
  delete?: boolean | undefined;
}

function knowledgeNotFound(id: string): ToolError {
  return new ToolError('NOT_FOUND', `知見 '${id}' はありません。`, {
    hint: 'Find the knowledge_id with search_knowledge.',
    details: { knowledge_id: id },
  });
}

/**
 * The knowledge lifecycle's 更新 and 削除: corrects an entry (content, category, tags, source) or removes
 * it, keeping its search index exact. Tags that were generated follow new content; given tags replace
 * them. A removal answers with the entry as it was, so a mistake can be undone with add_knowledge.
 */
export async function updateKnowledge(engine: Engine, input: UpdateKnowledgeInput) {
  const id = input.knowledge_id.trim();
  const content = input.content?.trim();
  if (content !== undefined) {
    if (!content)
      throw new ToolError('INVALID_ARGUMENT', 'content is empty.', { details: { field: 'content' } });
    checkSize('content', content, engine.config.limits.max_knowledge_bytes, 'limits.max_knowledge_bytes');
  }
  const category = input.category?.trim();
  if (category === '')
    throw new ToolError('INVALID_ARGUMENT', 'category is empty.', { details: { field: 'category' } });
  const given = input.tags?.map((t) => t.trim()).filter(Boolean);
  const changes = [content, category, input.tags, input.source].some((v) => v !== undefined);
  if (input.delete && changes) {
    throw new ToolError('INVALID_ARGUMENT', 'delete=true removes the entry: give no other change with it.', {
      details: { field: 'delete' },
    });
  }
  if (!input.delete && !changes) {
    throw new ToolError(
      'INVALID_ARGUMENT',
      'Nothing to update: give content, category, tags or source (or delete=true).',
    );
  }
  return engine.backend.write(async (stores) => {
    const entry = await stores.search.getKnowledge(id);
    if (!entry) throw knowledgeNotFound(id);
    if (input.delete) {
      await stores.search.removeKnowledge(entry.knowledge_id);
      return {
        success: true,
        knowledge_id: entry.knowledge_id,
        updated_fields: [] as string[],
        tags: entry.tags,
        deleted: entry,
        message: `知見 '${entry.knowledge_id}' を削除しました（内容は deleted に残しています）。`,
      };
    }
    const next: KnowledgeEntry = { ...entry };
    if (content !== undefined) next.content = content;
    if (category !== undefined) next.category = category;
    if (input.source !== undefined) next.source = input.source.trim();
    if (given !== undefined) next.tags = [...new Set(given)];
    else if (content !== undefined && tagsWereGenerated(entry))
      next.tags = extractKeywords(next.content, TAGS);
    const updated = (['content', 'category', 'tags', 'source'] as const).filter(
      (key) => JSON.stringify(next[key]) !== JSON.stringify(entry[key]),
    );
    if (updated.length > 0) await stores.search.updateKnowledge(next);
    return {
      success: true,
      knowledge_id: entry.knowledge_id,
      updated_fields: updated,
      tags: next.tags,
      message:
        updated.length === 0
          ? '変更はありません。'
          : `知見 '${entry.knowledge_id}' を更新しました（${updated.join(', ')}）。`,
    };
  });
}

/** Tags made by add_knowledge from the content (the same words come out of it again). */
function tagsWereGenerated(entry: KnowledgeEntry): boolean {
  return JSON.stringify(extractKeywords(entry.content, TAGS)) === JSON.stringify(entry.tags);
}
