import { ToolError } from '@mcp-workbench/core/engine';

/** The spec's fixed vocabularies. Unknown values are refused with the list of valid ones. */
export const TASK_STATUSES = ['not_started', 'in_progress', 'completed', 'blocked'] as const;
export const PHASE_STATUSES = ['not_started', 'in_progress', 'completed'] as const;
export const PRIORITIES = ['high', 'medium', 'low'] as const;
export const TASK_CATEGORIES = ['bug', 'feature', 'refactor', 'design', 'test'] as const;
export const CATALOG_STATUSES = ['active', 'archived'] as const;
export const REFERENCE_TIMINGS = [
  '設計時',
  '実装時',
  'レビュー時',
  'セッション開始時',
  'トラブル時',
  '随時',
] as const;

export type TaskStatus = (typeof TASK_STATUSES)[number];
export type PhaseStatus = (typeof PHASE_STATUSES)[number];
export type Priority = (typeof PRIORITIES)[number];
export type CatalogStatus = (typeof CATALOG_STATUSES)[number];

/** 種別 of the catalog schema, each with the English word agents often use instead. */
export const DOC_TYPES = {
  設計書: ['design'],
  実装手順書: ['procedure', 'implementation'],
  仕様書: ['spec', 'specification'],
  規約: ['convention', 'rule', 'rules'],
  設定: ['config', 'configuration', 'settings'],
  その他: ['other'],
} as const;
export type DocType = keyof typeof DOC_TYPES;

export function docTypeOf(value: string): DocType {
  const wanted = value.trim().normalize('NFKC').toLowerCase();
  for (const [type, aliases] of Object.entries(DOC_TYPES) as [DocType, readonly string[]][]) {
    if (type === wanted || aliases.includes(wanted)) return type;
  }
  throw new ToolError('INVALID_ARGUMENT', `Unknown doc_type "${value}".`, {
    hint: `Use one of: ${Object.keys(DOC_TYPES).join(', ')}.`,
    details: { field: 'doc_type', allowed: Object.keys(DOC_TYPES) },
  });
}

/** Checks a value against a vocabulary; the error names the field and the allowed values. */
export function oneOf<T extends string>(field: string, value: string, allowed: readonly T[]): T {
  if ((allowed as readonly string[]).includes(value)) return value as T;
  throw new ToolError('INVALID_ARGUMENT', `Unknown ${field} "${value}".`, {
    hint: `Use one of: ${allowed.join(', ')}.`,
    details: { field, allowed },
  });
}

/** The spec's column names of 進捗 (A–J; H–J are v2) and of 目録, in order: the sheets' headers and the Markdown views'. */
export const PROGRESS_HEADERS = [
  'フェーズ',
  'タスクID',
  'タスク名',
  'ステータス',
  'ブロッカー',
  '完了日',
  '備考',
  '優先度',
  'カテゴリ',
  '依存タスク',
] as const;

export const CATALOG_HEADERS = [
  'ドキュメント名',
  '保存先',
  'ID',
  '種別',
  'プロジェクト',
  'フェーズタスク',
  'フィーチャー',
  '参照タイミング',
  '関連ドキュメント',
  'キーワード',
  '更新日',
  '作成者',
  'ステータス',
] as const;
