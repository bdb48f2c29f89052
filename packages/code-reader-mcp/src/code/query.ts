import { ToolError } from '@mcp-workbench/core/engine';
import type { Node, Query, QueryCapture, QueryMatch, Tree } from 'web-tree-sitter';
import { compileLinearRegex, type TextTest } from '../util/linear-regex.js';
import { isTreeSitterCrash } from './parser.js';
import { isCommentNode } from './metrics.js';
import { declaredName, type CodeStructure } from './structure.js';

export const QUERY_KEYS = ['functions', 'methods', 'classes', 'fields', 'imports', 'comments'] as const;
export type QueryKey = (typeof QUERY_KEYS)[number];

export interface QueryHit {
  capture: string;
  node_type: string;
  /** As get_code_outline names it: the declared name alone (a method's class is `class`). */
  name: string;
  /** The enclosing class of a method or field (query_key hits; "" at the top level). */
  class?: string;
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

/** Longest query_string accepted (tree-sitter compiles it in one go, in WASM memory). */
export const MAX_QUERY_CHARS = 65_536;
/**
 * Deepest nesting of ( and [ accepted. tree-sitter's query compiler recurses per level and traps
 * beyond about 2,000 (breaking the WASM instance); real queries nest a dozen levels at most.
 */
export const MAX_QUERY_DEPTH = 256;

/** The deepest ( / [ nesting of a query, outside strings and `;` comments. */
export function queryDepth(source: string): number {
  let depth = 0;
  let deepest = 0;
  let inString = false;
  let inComment = false;
  for (let i = 0; i < source.length; i++) {
    const char = source[i];
    if (inComment) {
      if (char === '\n') inComment = false;
    } else if (inString) {
      if (char === '\\') i++;
      else if (char === '"') inString = false;
    } else if (char === '"') inString = true;
    else if (char === ';') inComment = true;
    else if (char === '(' || char === '[') deepest = Math.max(deepest, ++depth);
    else if (char === ')' || char === ']') depth--;
  }
  return deepest;
}

/** Refuses a query too long or too deeply nested to hand to tree-sitter (before any parsing). */
export function checkQueryString(source: string): void {
  if (source.length > MAX_QUERY_CHARS) {
    throw new ToolError(
      'LIMIT_EXCEEDED',
      `query_string has ${source.length} characters; the limit is ${MAX_QUERY_CHARS}.`,
      {
        hint: 'Write a shorter query, or run several smaller ones.',
        details: { limit: 'max_query_chars', value: source.length, max: MAX_QUERY_CHARS },
      },
    );
  }
  const depth = queryDepth(source);
  if (depth > MAX_QUERY_DEPTH) {
    throw new ToolError(
      'LIMIT_EXCEEDED',
      `query_string nests ${depth} levels deep; the limit is ${MAX_QUERY_DEPTH}.`,
      {
        hint: 'Nest patterns less deeply; tree-sitter queries rarely need more than a few levels.',
        details: { limit: 'max_query_depth', value: depth, max: MAX_QUERY_DEPTH },
      },
    );
  }
}

/** The regex predicates tree-sitter would run on JavaScript's backtracking engine. */
const REGEX_PREDICATES = ['match?', 'not-match?', 'any-match?', 'any-not-match?'];
/** What they are renamed to: predicates tree-sitter does not know, left to us. */
const DEFERRED = 'code-reader-';

/**
 * The query with its `#match?`-family predicates renamed (outside strings and `;` comments), so that
 * tree-sitter leaves them to runQueryString, which runs them on the linear-time engine: web-tree-sitter
 * runs them as JavaScript regular expressions on the server's thread, where `(a+)+$` against a
 * 48-character identifier never ends (no ping answered, SIGTERM ignored).
 */
export function deferRegexPredicates(source: string): { source: string; deferred: boolean } {
  let out = '';
  let deferred = false;
  let inString = false;
  let inComment = false;
  for (let i = 0; i < source.length; i++) {
    const char = source[i] as string;
    if (inComment) {
      if (char === '\n') inComment = false;
    } else if (inString) {
      if (char === '\\') {
        out += char + (source[i + 1] ?? '');
        i++;
        continue;
      }
      if (char === '"') inString = false;
    } else if (char === '"') inString = true;
    else if (char === ';') inComment = true;
    else if (char === '#') {
      const name = REGEX_PREDICATES.find(
        (p) => source.startsWith(p, i + 1) && !/[\w?-]/.test(source[i + 1 + p.length] ?? ''),
      );
      if (name) {
        out += `#${DEFERRED}${name}`;
        i += name.length;
        deferred = true;
        continue;
      }
    }
    out += char;
  }
  return { source: out, deferred };
}

interface RegexPredicate {
  capture: string;
  test: TextTest;
  /** match?/any-match? (the text must match), or their not- forms. */
  positive: boolean;
  /** match?: every node of the capture; any-match?: one is enough. */
  all: boolean;
}

function regexPredicatesOf(query: Query): RegexPredicate[][] {
  return query.predicates.map((predicates) =>
    predicates
      .filter((p) => p.operator.startsWith(DEFERRED))
      .map((p) => {
        const operator = p.operator.slice(DEFERRED.length);
        const [capture, pattern] = p.operands;
        if (capture?.type !== 'capture' || pattern?.type !== 'string' || p.operands.length !== 2) {
          throw new ToolError('INVALID_ARGUMENT', `#${operator} takes a capture and a string.`, {
            hint: 'Write it as (#match? @name "^get").',
          });
        }
        return {
          capture: capture.name,
          test: compileLinearRegex(pattern.value, `The #${operator} pattern`, '(#match? @name "^get")'),
          positive: !operator.includes('not-'),
          all: !operator.startsWith('any-'),
        };
      }),
  );
}

function passes(match: QueryMatch, predicates: readonly RegexPredicate[]): boolean {
  return predicates.every(({ capture, test, positive, all }) => {
    const nodes = match.captures.filter((c) => c.name === capture).map((c) => c.node);
    if (nodes.length === 0) return true;
    const results = nodes.map((node) => test.test(node.text) === positive);
    return all ? results.every(Boolean) : results.some(Boolean);
  });
}

/**
 * A raw tree-sitter query (S-expression); a query the grammar rejects is the caller's
 * INVALID_ARGUMENT. `compile` builds it against the tree's grammar (see ParsedSource.query).
 * `#match?` and its forms run here, on the linear-time engine (RE2 syntax), not in tree-sitter.
 */
export function runQueryString(tree: Tree, compile: (source: string) => Query, source: string): QueryHit[] {
  checkQueryString(source);
  const safe = deferRegexPredicates(source);
  let query: Query;
  try {
    query = compile(safe.source);
  } catch (error) {
    if (isTreeSitterCrash(error)) throw error; // a trap, not a bad query
    throw new ToolError('INVALID_ARGUMENT', `The tree-sitter query is invalid: ${(error as Error).message}`, {
      hint: 'Write an S-expression with node types of this grammar, e.g. "(function_declaration name: (identifier) @name)", or use query_key.',
    });
  }
  try {
    if (!safe.deferred)
      return query.captures(tree.rootNode).map((capture) => hitOf(capture.name, capture.node));
    const predicates = regexPredicatesOf(query);
    const captures: QueryCapture[] = [];
    for (const match of query.matches(tree.rootNode)) {
      if (passes(match, predicates[match.patternIndex] ?? [])) captures.push(...match.captures);
    }
    // In document order, as captures() gives them.
    captures.sort((a, b) => a.node.startIndex - b.node.startIndex || b.node.endIndex - a.node.endIndex);
    return captures.map((capture) => hitOf(capture.name, capture.node));
  } finally {
    query.delete();
  }
}

/** Comment nodes of a tree, in line order (the query_key "comments"). */
export function commentHits(tree: Tree): QueryHit[] {
  const hits: QueryHit[] = [];
  {
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
}

/** The predefined queries other than comments: from the file's structure (the same tables and masks). */
export function structureHits(structure: CodeStructure, key: Exclude<QueryKey, 'comments'>): QueryHit[] {
  const lines = (start: number, end: number) => ({ start_line: start, end_line: end });
  if (key === 'functions' || key === 'methods') {
    const wanted = structure.functions.filter((f) => key === 'functions' || f.kind === 'method');
    return wanted.map((f) => ({
      capture: f.kind,
      node_type: f.kind,
      name: f.name,
      class: f.class,
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
      name: f.name,
      class: f.class,
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
 * `class=exact`, `class~=regex`, `type=node_type`, `text~=regex`, `lines>N` / `lines<N`.
 */
export function applyFilter(hits: QueryHit[], filter: string | undefined): QueryHit[] {
  if (!filter?.trim()) return hits;
  const tests = filter.split(',').map((part) => compileCondition(part.trim()));
  return hits.filter((hit) => tests.every((test) => test(hit)));
}

function compileCondition(condition: string): (hit: QueryHit) => boolean {
  const match = /^(name|class|type|text|lines)\s*(=|~=|>|<)\s*(.*)$/.exec(condition);
  if (!match) {
    throw new ToolError('INVALID_ARGUMENT', `Invalid filter condition "${condition}".`, {
      hint: 'Use name=exact, name~=regex, class=exact, class~=regex, type=node_type, text~=regex, lines>N or lines<N, joined by commas.',
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
  const read = (hit: QueryHit) =>
    field === 'name'
      ? hit.name
      : field === 'class'
        ? (hit.class ?? '')
        : field === 'type'
          ? hit.node_type
          : hit.text;
  if (op === '=') return (hit) => read(hit) === value;
  if (op === '~=') {
    const regex = compileLinearRegex(value, `The filter regex after ${field}~=`, 'name~=^get');
    return (hit) => regex.test(read(hit));
  }
  throw new ToolError('INVALID_ARGUMENT', `Operator ${op} does not apply to ${field}.`, {
    hint: 'Use = or ~= for name, class, type and text.',
  });
}
