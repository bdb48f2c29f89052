import { ToolError } from '@mcp-workbench/core/engine';
import { Query, type Node, type Tree, type Language } from 'web-tree-sitter';
import type { LanguageId } from './languages.js';
import { compileLinearRegex } from '../util/linear-regex.js';
import { isCommentNode } from './metrics.js';
import { analyzeStructure, declaredName } from './structure.js';

export const QUERY_KEYS = ['functions', 'methods', 'classes', 'fields', 'imports', 'comments'] as const;
export type QueryKey = (typeof QUERY_KEYS)[number];

export interface QueryHit {
  capture: string;
  node_type: string;
  name: string;
  start_line: number;
  end_line: number;
  text: string;
}

const MAX_HIT_TEXT = 300;

function snippet(text: string): string {
  return text.length > MAX_HIT_TEXT
    ? `${text.slice(0, MAX_HIT_TEXT)}…[+${text.length - MAX_HIT_TEXT} chars]`
    : text;
}

function hitOf(capture: string, node: Node): QueryHit {
  return {
    capture,
    node_type: node.type,
    name: declaredName(node) || (node.childCount === 0 ? node.text : ''),
    start_line: node.startPosition.row + 1,
    end_line: node.endPosition.row + 1,
    text: snippet(node.text),
  };
}

/** A raw tree-sitter query (S-expression); a query the grammar rejects is the caller's INVALID_ARGUMENT. */
export function runQueryString(tree: Tree, language: Language, source: string): QueryHit[] {
  let query: Query;
  try {
    query = new Query(language, source);
  } catch (error) {
    throw new ToolError('INVALID_ARGUMENT', `The tree-sitter query is invalid: ${(error as Error).message}`, {
      hint: 'Write an S-expression with node types of this grammar, e.g. "(function_declaration name: (identifier) @name)", or use query_key.',
    });
  }
  try {
    return query.captures(tree.rootNode).map((capture) => hitOf(capture.name, capture.node));
  } finally {
    query.delete();
  }
}

/** The predefined queries: node kinds from the same tables the structure analysis uses. */
export function runQueryKey(tree: Tree, language: LanguageId, key: QueryKey): QueryHit[] {
  const hits: QueryHit[] = [];
  if (key === 'comments') {
    const stack: Node[] = [tree.rootNode];
    while (stack.length > 0) {
      const node = stack.pop() as Node;
      if (isCommentNode(node)) hits.push(hitOf('comment', node));
      else
        for (let i = node.childCount - 1; i >= 0; i--) {
          const child = node.child(i);
          if (child) stack.push(child);
        }
    }
    return hits.sort((a, b) => a.start_line - b.start_line);
  }
  const structure = analyzeStructure(tree, language);
  const lines = (start: number, end: number) => ({ start_line: start, end_line: end });
  if (key === 'functions' || key === 'methods') {
    const wanted = structure.functions.filter((f) => key === 'functions' || f.kind === 'method');
    return wanted.map((f) => ({
      capture: f.kind,
      node_type: f.kind,
      name: f.class ? `${f.class}.${f.name}` : f.name,
      ...lines(f.start_line, f.end_line),
      text: '',
    }));
  }
  if (key === 'classes') {
    return structure.classes.map((c) => ({
      capture: 'class',
      node_type: c.kind,
      name: c.name,
      ...lines(c.start_line, c.end_line),
      text: '',
    }));
  }
  if (key === 'fields') {
    return structure.fields.map((f) => ({
      capture: 'field',
      node_type: 'field',
      name: f.class ? `${f.class}.${f.name}` : f.name,
      ...lines(f.line, f.line),
      text: '',
    }));
  }
  return structure.imports.map((i) => ({
    capture: 'import',
    node_type: 'import',
    name: '',
    ...lines(i.line, i.line),
    text: i.text,
  }));
}

/**
 * Filters hits: comma-separated conditions that must all hold — `name=exact`, `name~=regex`,
 * `type=node_type`, `text~=regex`, `lines>N` / `lines<N`.
 */
export function applyFilter(hits: QueryHit[], filter: string | undefined): QueryHit[] {
  if (!filter?.trim()) return hits;
  const tests = filter.split(',').map((part) => compileCondition(part.trim()));
  return hits.filter((hit) => tests.every((test) => test(hit)));
}

function compileCondition(condition: string): (hit: QueryHit) => boolean {
  const match = /^(name|type|text|lines)\s*(=|~=|>|<)\s*(.*)$/.exec(condition);
  if (!match) {
    throw new ToolError('INVALID_ARGUMENT', `Invalid filter condition "${condition}".`, {
      hint: 'Use name=exact, name~=regex, type=node_type, text~=regex, lines>N or lines<N, joined by commas.',
    });
  }
  const [, field, op, value = ''] = match;
  if (field === 'lines') {
    const limit = Number(value);
    if (!Number.isFinite(limit) || (op !== '>' && op !== '<')) {
      throw new ToolError('INVALID_ARGUMENT', `Invalid lines condition "${condition}".`, {
        hint: 'Use lines>N or lines<N.',
      });
    }
    return (hit) => {
      const lines = hit.end_line - hit.start_line + 1;
      return op === '>' ? lines > limit : lines < limit;
    };
  }
  const read = (hit: QueryHit) => (field === 'name' ? hit.name : field === 'type' ? hit.node_type : hit.text);
  if (op === '=') return (hit) => read(hit) === value;
  if (op === '~=') {
    const regex = compileLinearRegex(value, `The filter regex after ${field}~=`, 'name~=^get');
    return (hit) => regex.test(read(hit));
  }
  throw new ToolError('INVALID_ARGUMENT', `Operator ${op} does not apply to ${field}.`, {
    hint: 'Use = or ~= for name, type and text.',
  });
}
