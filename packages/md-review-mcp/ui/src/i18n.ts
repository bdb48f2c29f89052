// The page speaks English or Japanese (the browser's language, or ?lang=ja / ?lang=en).

const en = {
  files: 'Files',
  reviewed: 'Reviewed',
  markReviewed: 'Mark reviewed',
  instructions: 'What to check',
  defaultChecklist: [
    'Is it technically accurate?',
    'Is anything missing or out of scope?',
    'Is it clear and unambiguous?',
    'Are the steps in a sensible order?',
    'Are risks and open questions named?',
  ],
  globalComments: 'Global comments',
  addGlobal: 'Add comment',
  globalPlaceholder: 'A comment on the whole review…',
  overall: 'Overall comment',
  overallPlaceholder: 'Optional summary for the agent…',
  finalize: 'Finalize',
  cancel: 'Cancel',
  cancelReview: 'Cancel review',
  back: 'Back',
  save: 'Save',
  edit: 'Edit',
  delete: 'Delete',
  comment: 'Comment',
  commentPlaceholder: 'Your comment on the selected lines…',
  severity: 'Severity',
  severities: { must: 'must', should: 'should', suggestion: 'suggestion', question: 'question' },
  severityHelp: { must: 'must fix', should: 'should fix', suggestion: 'optional', question: 'question' },
  rendered: 'Rendered',
  source: 'Source',
  lines: (a: number, b: number) => (a === b ? `line ${a}` : `lines ${a}–${b}`),
  lineCount: (n: number) => `${n} lines`,
  counts: (inline: number, global: number, earlier = 0) =>
    `${inline} inline · ${global} global${earlier > 0 ? ` · ${earlier} from earlier rounds` : ''}`,
  selectHint: 'Click a line number to select, shift-click or drag to extend, then press C to comment.',
  commentOnSelection: (a: number, b: number) => `Comment on ${a === b ? `line ${a}` : `lines ${a}–${b}`}`,
  finalizeTitle: 'Finalize the review?',
  finalizeBody: (n: number, overall = false, earlier = 0) =>
    (n === 0 && !overall
      ? `No ${earlier > 0 ? 'new ' : ''}comments: the agent is told the document is approved.`
      : n === 0
        ? 'The agent receives your overall comment (not an approval).'
        : `The agent receives ${n} comment${n === 1 ? '' : 's'}.`) +
    (earlier > 0
      ? ` Comments from earlier rounds go along as they are, marked as such; delete the ones that are settled.`
      : ''),
  draftsTitle: 'You have comments that are not saved',
  draftsBody: (n: number) =>
    `${n} comment box${n === 1 ? ' holds' : 'es hold'} text you have not added yet. Add ${n === 1 ? 'it' : 'them'} to the review, or discard ${n === 1 ? 'it' : 'them'}?`,
  saveDrafts: 'Add them',
  discardDrafts: 'Discard them',
  discardTitle: 'Discard this comment?',
  discardBody: 'The text you typed is not saved.',
  discard: 'Discard',
  fileChangedOnDisk: 'This file changed on disk since you opened it. Reload it to review the current text.',
  reload: 'Reload',
  fileUnavailable: (message: string) => `This file cannot be shown: ${message}`,
  cancelTitle: 'Cancel the review?',
  cancelBody: 'The agent is told you cancelled. Your comments are kept and sent along.',
  finalized: 'Review sent to the agent. You can close this window.',
  cancelled: 'Review cancelled. You can close this window.',
  reopened: 'The agent asked for another round: you can comment again.',
  waiting: 'The agent is waiting for your review.',
  notWaiting: 'The agent is not waiting right now; your review is saved and delivered when it asks.',
  invalidLink:
    'This review link is not valid (wrong or expired key). Open the newest link md-review gave you, or run `npx md-review-mcp link` on the machine where the agent runs.',
  needsKeyTitle: 'This review needs your link',
  needsKeyBody:
    'The address the agent has opens the page without the key that lets you comment and finalize: only you get that link (it ends with #token=…). Find it:',
  whereIsTheLink: [
    'in the window md-review opened for this review;',
    'in your MCP client, if it offered to open a link;',
    'in the MCP server’s log, on the line “md-review: … is waiting for review at …”;',
    'by running `npx md-review-mcp link` in a terminal on the machine where the agent runs.',
  ],
  moved:
    'This review moved to another md-review window (the agent asked for it from another session): changes here are no longer saved. Open the newest link md-review gave you.',
  pasteLink: 'Paste the link here',
  open: 'Open',
  notALink: 'That is not a review link of this server (it ends with #token=…).',
  fileChanged: 'The file changed since this comment was written.',
  offline: 'Cannot reach the review server. Is the agent still running?',
  theme: 'Theme',
  help: 'Keyboard shortcuts',
  shortcuts: [
    ['j / k', 'next / previous block (line in source view)'],
    ['Shift + j / k', 'extend the selection'],
    ['c or Enter', 'comment on the selection'],
    ['Ctrl/⌘ + Enter', 'save the comment'],
    ['Esc', 'close the box, clear the selection'],
    ['[ / ]', 'previous / next file'],
    ['r', 'mark the file reviewed'],
    ['s', 'rendered / source view'],
    ['g', 'write a global comment'],
    ['t', 'light / dark theme'],
    ['Ctrl/⌘ + Shift + Enter', 'finalize'],
    ['?', 'this help'],
  ] as Array<[string, string]>,
  image: 'image',
  changes: 'Changes since last round',
  changesButton: 'Changes',
  changesSummary: (added: number, removed: number) => `Changed since last round: +${added} −${removed} lines`,
  unchangedSinceLastRound: 'Unchanged since last round',
  changedSinceLastRound: 'Changed since last round',
  removedLines: (n: number) => `− ${n} line${n === 1 ? '' : 's'} removed here`,
  unchangedLines: (n: number) => `⋯ ${n} unchanged line${n === 1 ? '' : 's'}`,
  inline: 'Inline',
  sideBySide: 'Side by side',
  stale: 'lines changed',
  wasTitle: 'The lines as they were when the comment was written',
  movedFrom: (a: number, b: number) =>
    `Written on ${a === b ? `line ${a}` : `lines ${a}–${b}`}; the lines moved`,
  fromRound: (n: number) => `round ${n}`,
  fromRoundTitle: (n: number) =>
    `Written in round ${n}: it does not count toward this round's verdict. Delete it once it is settled.`,
  diagram: 'Diagram',
  diagramSource: 'Show or hide its source',
  diagramFailed: 'This diagram could not be drawn',
  close: 'Close',
  confirmDelete: 'Delete this comment?',
};

type Strings = typeof en;

const ja: Strings = {
  ...en,
  files: 'ファイル',
  reviewed: '確認済み',
  markReviewed: '確認済みにする',
  instructions: '確認項目',
  defaultChecklist: [
    '技術的に正確か',
    '抜けや範囲外の内容はないか',
    '明確で曖昧さがないか',
    '手順の順序は妥当か',
    'リスクや未解決の問題が書かれているか',
  ],
  globalComments: '全体コメント',
  addGlobal: 'コメントを追加',
  globalPlaceholder: 'レビュー全体へのコメント…',
  overall: '総評',
  overallPlaceholder: 'エージェントへのまとめ（任意）…',
  finalize: '完了',
  cancel: 'キャンセル',
  cancelReview: 'レビューをキャンセル',
  back: '戻る',
  save: '保存',
  edit: '編集',
  delete: '削除',
  comment: 'コメント',
  commentPlaceholder: '選択した行へのコメント…',
  severity: '重要度',
  severityHelp: { must: '必須修正', should: '推奨', suggestion: '提案', question: '質問' },
  rendered: '表示',
  source: 'ソース',
  lines: (a, b) => (a === b ? `${a} 行目` : `${a}–${b} 行目`),
  lineCount: (n) => `${n} 行`,
  counts: (inline, global, earlier = 0) =>
    `行コメント ${inline} · 全体 ${global}${earlier > 0 ? ` · 以前のラウンド ${earlier}` : ''}`,
  selectHint: '行番号をクリックで選択、Shift+クリックやドラッグで範囲を広げ、C キーでコメント。',
  commentOnSelection: (a, b) => `${a === b ? `${a} 行目` : `${a}–${b} 行目`}にコメント`,
  finalizeTitle: 'レビューを完了しますか？',
  finalizeBody: (n, overall = false, earlier = 0) =>
    (n === 0 && !overall
      ? `${earlier > 0 ? '新しい' : ''}コメントなし：承認としてエージェントに伝えます。`
      : n === 0
        ? '総評をエージェントに送ります（承認にはなりません）。'
        : `${n} 件のコメントをエージェントに送ります。`) +
    (earlier > 0
      ? ' 以前のラウンドのコメントはそのまま（以前のものとして）送られます。解決済みのものは削除してください。'
      : ''),
  draftsTitle: '保存していないコメントがあります',
  draftsBody: (n) => `まだ追加していないコメントが ${n} 件あります。追加しますか、破棄しますか？`,
  saveDrafts: '追加する',
  discardDrafts: '破棄する',
  discardTitle: 'このコメントを破棄しますか？',
  discardBody: '入力したテキストは保存されません。',
  discard: '破棄',
  fileChangedOnDisk:
    'このファイルは開いた後にディスク上で変更されました。再読み込みして現在の内容を確認してください。',
  reload: '再読み込み',
  fileUnavailable: (message) => `このファイルは表示できません：${message}`,
  cancelTitle: 'レビューをキャンセルしますか？',
  cancelBody: 'キャンセルしたことがエージェントに伝わります。コメントは保存され、一緒に送られます。',
  finalized: 'レビューをエージェントに送りました。このウィンドウは閉じてかまいません。',
  cancelled: 'レビューをキャンセルしました。このウィンドウは閉じてかまいません。',
  reopened: 'エージェントが再レビューを依頼しました。コメントを追加できます。',
  waiting: 'エージェントがレビューを待っています。',
  notWaiting: 'エージェントは今は待機していません。レビューは保存され、次の問い合わせで渡されます。',
  invalidLink:
    'このレビューのリンクは無効です（キーが違うか期限切れ）。md-review が出した最新のリンクを開くか、エージェントが動いているマシンで `npx md-review-mcp link` を実行してください。',
  needsKeyTitle: 'このレビューにはあなた用のリンクが必要です',
  needsKeyBody:
    'エージェントが知っているアドレスでは、コメントや完了に必要なキーがありません。キー付きのリンク（#token=… で終わる）はあなただけに渡されます。次の場所にあります：',
  whereIsTheLink: [
    'md-review がこのレビュー用に開いたウィンドウ',
    'MCP クライアントがリンクを開くよう求めた場合はその画面',
    'MCP サーバーのログの「md-review: … is waiting for review at …」の行',
    'エージェントが動いているマシンのターミナルで `npx md-review-mcp link` を実行',
  ],
  moved:
    'このレビューは別の md-review ウィンドウに移りました（エージェントが別のセッションから依頼しました）。ここでの変更は保存されません。md-review が出した最新のリンクを開いてください。',
  pasteLink: 'ここにリンクを貼り付け',
  open: '開く',
  notALink: 'このサーバーのレビューリンクではありません（#token=… で終わるリンクです）。',
  fileChanged: 'このコメントの後にファイルが変更されました。',
  offline: 'レビューサーバーに接続できません。エージェントは動いていますか？',
  theme: 'テーマ',
  help: 'キーボードショートカット',
  shortcuts: [
    ['j / k', '次 / 前のブロック（ソース表示では行）'],
    ['Shift + j / k', '選択範囲を広げる'],
    ['c または Enter', '選択範囲にコメント'],
    ['Ctrl/⌘ + Enter', 'コメントを保存'],
    ['Esc', '入力欄を閉じる・選択を解除'],
    ['[ / ]', '前 / 次のファイル'],
    ['r', 'ファイルを確認済みにする'],
    ['s', '表示 / ソース切り替え'],
    ['g', '全体コメントを書く'],
    ['t', 'ライト / ダーク'],
    ['Ctrl/⌘ + Shift + Enter', '完了'],
    ['?', 'このヘルプ'],
  ],
  image: '画像',
  changes: '前回からの変更',
  changesButton: '変更',
  changesSummary: (added, removed) => `前回のレビューから変更: +${added} −${removed} 行`,
  unchangedSinceLastRound: '前回のレビューから変更なし',
  changedSinceLastRound: '前回のレビューから変更された行',
  removedLines: (n) => `− ここで ${n} 行削除`,
  unchangedLines: (n) => `⋯ 変更のない ${n} 行`,
  inline: 'インライン',
  sideBySide: '左右に並べる',
  stale: '行が変更済み',
  wasTitle: 'コメントを書いた時点の行',
  movedFrom: (a, b) => `${a === b ? `${a} 行目` : `${a}–${b} 行目`}に書かれたコメント（行が移動）`,
  fromRound: (n) => `ラウンド ${n}`,
  fromRoundTitle: (n) => `ラウンド ${n} のコメント：今回の判定には数えません。解決済みなら削除してください。`,
  diagram: '図',
  diagramSource: 'ソースを表示 / 隠す',
  diagramFailed: 'この図は描画できませんでした',
  close: '閉じる',
  confirmDelete: 'このコメントを削除しますか？',
};

function pickLanguage(): 'en' | 'ja' {
  const asked = new URLSearchParams(location.search).get('lang');
  if (asked === 'ja' || asked === 'en') return asked;
  return navigator.language.toLowerCase().startsWith('ja') ? 'ja' : 'en';
}

export const lang = pickLanguage();
export const t: Strings = lang === 'ja' ? ja : en;
