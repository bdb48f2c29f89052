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
