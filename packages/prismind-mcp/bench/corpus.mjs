// Generated, deterministic, mixed Japanese/English material for the benchmark: knowledge entries and
// catalog documents shaped like a game studio's (the spec's example project), with realistic term overlap.

/** Mulberry32: a small seeded PRNG, so every run loads the same data. */
export function rng(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const JA_NOUNS = (
  '罠 敵 弾 武器 設計 実装 手順 当たり判定 トリガー ボリューム ビヘイビアツリー ノード ブループリント マテリアル ' +
  'ウィジェット アセット レベル マップ スポーン プレイヤー カメラ 入力 物理 衝突 アニメーション モンタージュ ' +
  'サーバ クライアント 同期 レプリケーション 予測 遅延 パケット セーブ ロード メモリ 性能 最適化 描画 影 ' +
  '照明 音響 エフェクト パーティクル 演出 UI フォント ローカライズ 翻訳 ビルド パッケージ デバッグ ログ 例外 ' +
  'テスト 自動化 レビュー 規約 命名 構成 依存 モジュール プラグイン エディタ ツール データ テーブル 設定'
).split(' ');
const JA_VERBS = [
  'を作る',
  'を調整する',
  'を分ける',
  'を確認する',
  'を使う',
  'で落ちる',
  'が遅い',
  'を直す',
  'を減らす',
  'を揃える',
];
const JA_GLUE = ['ときは', 'には', 'なら', 'と', 'の前に', 'の後で', 'より先に'];
const EN_WORDS = (
  'trap enemy weapon design implement procedure collision trigger volume behavior tree node blueprint material ' +
  'widget asset level map spawn player camera input physics animation server client sync replication prediction ' +
  'latency packet save load memory performance optimize render shadow light audio effect particle font build ' +
  'package debug log exception test automation review naming module plugin editor tool table config cache shader'
).split(' ');

const pick = (r, list) => list[Math.floor(r() * list.length)];

export function japaneseSentence(r) {
  return `${pick(r, JA_NOUNS)}${pick(r, JA_GLUE)}${pick(r, JA_NOUNS)}${pick(r, JA_VERBS)}。`;
}

export function englishSentence(r) {
  const n = 6 + Math.floor(r() * 6);
  const words = Array.from({ length: n }, () => pick(r, EN_WORDS));
  return `${words.join(' ')}.`;
}

/** The benchmark's mixed search_knowledge queries (Japanese, English, both, a sentence). */
export const KNOWLEDGE_QUERIES = [
  '当たり判定',
  'トリガー ボリューム',
  'collision trigger',
  '罠 サーバ',
  'ビヘイビアツリー ノード',
  'shader cache',
  'レプリケーションを直す',
  'スポーン',
];

export const CATEGORIES = ['問題解決', '技術Tips', 'ベストプラクティス', '落とし穴'];
export const DOC_TYPES = ['設計書', '実装手順書', '仕様書', '規約', '設定', 'その他'];

/** Knowledge i: one to three sentences, two thirds Japanese, a third English or mixed. */
export function knowledgeText(i) {
  const r = rng(1000 + i);
  const parts = [];
  const n = 1 + Math.floor(r() * 3);
  for (let k = 0; k < n; k++) parts.push(r() < 0.66 ? japaneseSentence(r) : englishSentence(r));
  return parts.join(' ');
}

/** Every LONG_EVERY-th document is long (LONG_CHARS more characters): documents are indexed whole. */
export const LONG_EVERY = 100;
export const LONG_CHARS = 20_000;
/** Document FIFTY_K is 50,000 characters long, with FIFTY_K_TERM near its end. */
export const FIFTY_K = 7;
export const FIFTY_K_TERM = '溶岩床ゲート';

/** About `n` characters of the corpus' sentences (Japanese and English), from a seed. */
export function prose(seed, n) {
  const r = rng(seed);
  let text = '';
  while (text.length < n)
    text += `${r() < 0.7 ? japaneseSentence(r) : englishSentence(r)}${r() < 0.1 ? '\n\n' : ' '}`;
  return text.slice(0, n);
}

export function documentOf(i) {
  const r = rng(500_000 + i);
  const phase = 1 + Math.floor(r() * 8);
  const task = 1 + Math.floor(r() * 40);
  const feature = `${pick(r, EN_WORDS)}${pick(r, ['System', 'UI', 'AI', 'Net', 'FX'])}`;
  const type = pick(r, DOC_TYPES);
  return {
    name: `${feature}の${pick(r, JA_NOUNS)}${i}`,
    doc_type: type,
    phase_task: r() < 0.8 ? `P${phase}-T${String(task).padStart(2, '0')}` : '共通',
    feature,
    content:
      `${japaneseSentence(r)}\n\n${englishSentence(r)}\n\n${japaneseSentence(r)}` +
      (i === FIFTY_K
        ? `\n\n${prose(900_000 + i, 49_900)}\n\n${FIFTY_K_TERM}の開閉は最後に確認する。\n`
        : i % LONG_EVERY === LONG_EVERY - 1
          ? `\n\n${prose(900_000 + i, LONG_CHARS)}\n`
          : ''),
  };
}
