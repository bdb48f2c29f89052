import { describe, expect, it } from 'vitest';
import { normalizePhaseTask, procedureName } from '../src/model/documents.js';
import { estimateTokens } from '../src/engine/save-triggers.js';
import { isoDuration } from '../src/engine/sessions.js';
import { safeName } from '../src/model/names.js';
import { parse as parseYaml } from 'yaml';
import { parseMarkdown, plainFrontMatter, renderMarkdown } from '../src/store/local/front-matter.js';
import { extractKeywords } from '../src/text/keywords.js';
import { countedGrams, GramScorer } from '../src/search/rank.js';
import { calibrate, gramCosine, gramVector, textSimilarity } from '../src/text/ngram.js';
import { queryTerms } from '../src/text/terms.js';

describe('engine pieces', () => {
  it('decides per term how a query is matched', () => {
    expect(queryTerms('罠 トラップ ui WeaponSystem')).toEqual([
      { text: '罠', kind: 'short', cjk: true },
      { text: 'トラップ', kind: 'trigram', cjk: true },
      { text: 'ui', kind: 'short', cjk: false },
      { text: 'weaponsystem', kind: 'word', cjk: false },
    ]);
    expect(queryTerms('WeaponSystem刷新の実装手順書').map((t) => t.text)).toEqual([
      'weaponsystem',
      '刷新',
      '実装',
      '手順',
      '書',
    ]);
    expect(queryTerms('の').map((t) => t.text)).toEqual(['の']); // a lone particle is still a query
    expect(queryTerms('ＵＩ　設計').map((t) => t.text)).toEqual(['ui', '設計']); // full-width folded
  });

  it('generates CJK-aware keywords: loanwords, compounds, identifiers; no particles or verb endings', () => {
    const keywords = extractKeywords(
      'ビヘイビアツリーのノードを生成する。UE5.7 の FGraphNodeCreator に問題がある。',
      8,
    );
    expect(keywords).toEqual(
      expect.arrayContaining(['ビヘイビアツリー', 'ノード', 'FGraphNodeCreator', '問題']),
    );
    for (const bad of ['の', 'を', 'する', 'ある', 'に']) expect(keywords).not.toContain(bad);
    // Loanwords ICU's dictionary does not know come whole, not in the pieces it cuts them into.
    const loanwords = extractKeywords('シークレットをビルドの前にエンドポイントから読む', 8);
    expect(loanwords).toEqual(expect.arrayContaining(['シークレット', 'ビルド', 'エンドポイント']));
    for (const piece of ['シーク', 'レット', 'ビル', 'ポイント']) expect(loanwords).not.toContain(piece);
    expect(extractKeywords('The trap triggers when the player enters the volume', 5)).toEqual(
      expect.arrayContaining(['trap', 'triggers', 'player']),
    );
  });

  it('similarity is in [0, 1] and separates related from unrelated', () => {
    const related = textSimilarity('TrapGame トラップ対戦ゲーム', 'TrapxTrapCpp 1v1トラップアクションゲーム');
    const unrelated = textSimilarity(
      '経費精算システム 社内の経費申請',
      'TrapxTrapCpp 1v1トラップアクションゲーム',
    );
    expect(related).toBeGreaterThan(0.6);
    expect(unrelated).toBeLessThan(0.2);
    expect(textSimilarity('同じ', '同じ')).toBeCloseTo(1, 5);
    expect(textSimilarity('', 'x')).toBe(0);
  });

  it('names files safely and by the procedure naming rule', () => {
    expect(safeName('a/b:c*?"<>|', 'x')).toBe('a_b_c______');
    expect(safeName('..', 'fallback')).toBe('fallback');
    expect(safeName('CON', 'x')).toBe('_CON');
    expect(Buffer.byteLength(safeName('あ'.repeat(200), 'x'))).toBeLessThanOrEqual(180);
    expect(normalizePhaseTask('ｐ４－ｔ１')).toBe('P4-T01');
    expect(normalizePhaseTask('P3_T05')).toBe('P3-T05');
    expect(normalizePhaseTask('技術選定')).toBe('技術選定');
    expect(normalizePhaseTask('Phase 2-T01')).toBe('P2-T01');
    expect(normalizePhaseTask('フェーズ２ Ｔ１')).toBe('P2-T01');
    expect(normalizePhaseTask('Phase 4.5-T03')).toBe('P4.5-T03');
    expect(normalizePhaseTask('事前設計-T01')).toBe('事前設計-T01');
    expect(procedureName('P4-T01', 'BTノード生成', 'Blueprint', ['P4_T01_BTノード生成_Blueprint_001'])).toBe(
      'P4_T01_BTノード生成_Blueprint_002',
    );
    expect(procedureName('P3-T05', 'WeaponSystem', 'C++', [])).toBe('P3_T05_WeaponSystem_C++_001');
    expect(procedureName('共通', 'x', undefined, [])).toBeUndefined();
  });

  it('reads front matter a person wrote, or none', () => {
    expect(parseMarkdown('---\nname: 設計\n---\n# 本文\n')).toEqual({
      fields: { name: '設計' },
      body: '# 本文\n',
    });
    expect(parseMarkdown('# 見出しだけ\n')).toEqual({ fields: undefined, body: '# 見出しだけ\n' });
    expect(parseMarkdown('---\n: : broken\n---\nbody').fields).toBeUndefined();
  });

  it('estimates tokens and formats durations', () => {
    expect(estimateTokens('abcd'.repeat(10))).toBe(10);
    expect(estimateTokens('罠'.repeat(10))).toBe(10);
    expect(estimateTokens('😀')).toBe(1);
    expect(isoDuration(0)).toBe('PT0S');
    expect(isoDuration(3_600_000)).toBe('PT1H');
    expect(isoDuration(4_985_000)).toBe('PT1H23M5S');
  });
});

describe('n-gram scoring', () => {
  it('scores a text exactly as the sparse vectors do, counted once and reused', () => {
    const texts = [
      'ビヘイビアツリーのノードを生成する。UE5.7 の FGraphNodeCreator に問題がある。',
      'The trap triggers when the player enters the volume',
      '',
      '罠',
      `${'長い設計書の本文。'.repeat(600)} trap volume`,
      'TrapxTrapCpp 1v1トラップアクションゲーム',
    ];
    for (const query of ['トラップ ゲーム', 'trap volume player', 'ノード生成', 'x']) {
      const scorer = new GramScorer(query);
      for (const text of [...texts, ...texts]) {
        expect(scorer.similarity(text)).toBe(calibrate(gramCosine(gramVector(query), gramVector(text))));
      }
    }
    expect(countedGrams(texts[0]!)).toBe(countedGrams(texts[0]!));
  });
});

describe('front matter', () => {
  it('reads the plain front matter the server writes without the YAML parser, as the parser would', () => {
    const tricky = [
      '',
      'ノード 設計',
      '2026-11-26T20:09:37.761Z',
      '1v1トラップ',
      '123',
      '-5',
      '1.5',
      '1e5',
      '.5',
      '0x1F',
      '0o17',
      '.inf',
      '.NaN',
      'true',
      'False',
      'null',
      '~',
      'yes',
      'a: b',
      'a:',
      'a #b',
      'a#b',
      '#a',
      '- a',
      '-a',
      '[x]',
      '{x}',
      '"q"',
      "'q'",
      '&a',
      '*a',
      '!a',
      '|a',
      '>a',
      '%a',
      '@a',
      '`a',
      '?a',
      ',a',
      ' lead',
      'trail ',
      'tab\there',
      'line\nbreak',
      'nbsp\u00a0',
      'http://example.com/a?b=c',
      'x: y: z',
      'P4-T01',
      '共通',
      '\u0085nel',
      '\u0001ctl',
    ];
    let fast = 0;
    for (const value of tricky) {
      for (const entry of [
        { doc_id: 'doc-1', name: value, keywords: [value, 'x'], related_docs: [], status: 'active' },
        { doc_id: 'doc-1', name: 'n', keywords: [], reference_timing: value },
      ]) {
        const text = renderMarkdown(entry, 'body\n');
        const source = /^---\n([\s\S]*?)\n---\n/.exec(text)![1]!;
        const plain = plainFrontMatter(source);
        if (plain !== undefined) {
          fast++;
          expect(plain).toEqual(parseYaml(source));
        }
        expect(parseMarkdown(text)).toEqual({ fields: parseYaml(source), body: 'body\n' });
      }
    }
    expect(fast).toBeGreaterThan(10);
    // What the plain reader leaves to the parser.
    for (const source of [
      'a: 1',
      'a: b\na: c',
      'a:',
      'a: b # c',
      'a:\n  - b\n  - 2',
      'a: b\n  c',
      'a: "b"',
      '__proto__: x',
      'null: x',
      'a:b',
    ])
      expect(plainFrontMatter(source)).toBeUndefined();
    expect(plainFrontMatter('a: b\nc:\n  - d\n  - e f\ng: []\nh: ""')).toEqual({
      a: 'b',
      c: ['d', 'e f'],
      g: [],
      h: '',
    });
  });
});
