import { ToolError } from '@mcp-workbench/core/engine';
import { MAX_QUERY_CHARS, MAX_QUERY_TERMS, parseQuery } from '../text/terms.js';

/**
 * Checks a search query before any work: at most MAX_QUERY_CHARS characters (LIMIT_EXCEEDED beyond),
 * and something to search for (a letter, a digit or an emoji). Returns the warnings the answer carries:
 * a query with more distinct terms than MAX_QUERY_TERMS is matched by its first ones.
 */
export function checkQuery(query: string, field = 'query'): string[] {
  if (query.length > MAX_QUERY_CHARS) {
    throw new ToolError(
      'LIMIT_EXCEEDED',
      `${field} is ${query.length} characters long; the limit is ${MAX_QUERY_CHARS}.`,
      {
        hint: 'Search for the key words or a sentence, not a whole page.',
        details: { field, length: query.length, limit: MAX_QUERY_CHARS },
      },
    );
  }
  const { terms, cut } = parseQuery(query);
  if (terms.length === 0) {
    throw new ToolError(
      'INVALID_ARGUMENT',
      `${field} has nothing to search for (no letter, digit or emoji).`,
      {
        hint: 'Give words to search for, e.g. "当たり判定" or "trigger volume".',
        details: { field },
      },
    );
  }
  return cut
    ? [`クエリの語が多いため、最初の${MAX_QUERY_TERMS}語で照合しました（類似度はクエリ全体から計算）。`]
    : [];
}

/**
 * What a search found, in words: the entries containing every term (total_count, of which `shown` are
 * in the answer), then the near candidates that follow them when they did not fill the page.
 */
export function foundMessage(
  query: string,
  what: string,
  total: number,
  shown: number,
  near: number,
): string {
  if (total === 0 && near === 0) return `「${query}」に関する${what}は見つかりませんでした。`;
  const nearText = near > 0 ? `近い候補${near}件を続けて示しました。` : '';
  if (total === 0) return `「${query}」の語をすべて含む${what}はありませんでした。${nearText}`;
  return `${total}件見つかりました（関連度順${total > shown ? `、上位${shown}件` : ''}）。${nearText}`;
}
