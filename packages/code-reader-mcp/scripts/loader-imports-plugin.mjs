// A tsdown (rolldown) plugin for dist/server-bundle.cjs, the bundle the bin's loader compiles
// (src/start/code-cache.ts):
// - Every dynamic `import()` goes through `__loaderImport`, an argument the loader passes. On Node 20,
//   code that V8 deserialized from a code cache has lost vm.Script's import() callback (the import
//   rejects with ERR_VM_DYNAMIC_IMPORT_CALLBACK_MISSING; Node 24 keeps it), and ripgrep, tree-sitter and
//   the tokenizer are imported that way. Loaded by a plain require (Node ≥ 22), the bundle has no such
//   argument and uses import() itself.
// - Non-ASCII characters in string and template literals are written as \u escapes (same values), so
//   the file is ASCII: the loader then reads it as a one-byte string, which is faster to decode, hash
//   and parse than the two-byte string a single "…" makes of it.

function nodesOf(node, visit) {
  if (Array.isArray(node)) {
    for (const child of node) nodesOf(child, visit);
  } else if (node && typeof node === 'object') {
    if (typeof node.type === 'string') visit(node);
    for (const key in node) if (key !== 'parent') nodesOf(node[key], visit);
  }
}

function escapeNonAscii(text) {
  return text.replace(/[\u0080-\uffff]/g, (char) => `\\u${char.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

function routeImports(context, code) {
  const found = [];
  nodesOf(context.parse(code), (node) => node.type === 'ImportExpression' && found.push(node));
  if (found.length === 0) return code;
  let out = code;
  for (const node of found.sort((a, b) => b.start - a.start)) {
    if (node.options) context.error('import() with options is not routed through the loader');
    const specifier = code.slice(node.source.start, node.source.end);
    out = `${out.slice(0, node.start)}__importEsm(${specifier})${out.slice(node.end)}`;
  }
  const define =
    "var __importEsm = typeof __loaderImport === 'function' ? __loaderImport : (specifier) => import(specifier);\n";
  const directive = /^(['"])use strict\1;?\n?/.exec(out);
  return directive ? directive[0] + define + out.slice(directive[0].length) : define + out;
}

/** Escapes string literals and the text of untagged template literals (a tag would see the escapes). */
function asciiLiterals(context, code) {
  if (!/[\u0080-\uffff]/.test(code)) return code;
  const spans = [];
  const tagged = [];
  nodesOf(context.parse(code), (node) => {
    if (node.type === 'TaggedTemplateExpression') tagged.push(node.quasi);
    const isString = node.type === 'Literal' && typeof node.value === 'string';
    if (isString || node.type === 'TemplateElement') spans.push(node);
  });
  const inTag = (node) => tagged.some((quasi) => quasi.start <= node.start && node.end <= quasi.end);
  let out = code;
  for (const node of spans.sort((a, b) => b.start - a.start)) {
    const text = code.slice(node.start, node.end);
    if (/[\u0080-\uffff]/.test(text) && !inTag(node))
      out = out.slice(0, node.start) + escapeNonAscii(text) + out.slice(node.end);
  }
  return out;
}

export function loaderImports() {
  return {
    name: 'code-reader-loader-bundle',
    renderChunk(code) {
      return routeImports(this, code);
    },
    // After minification, which writes escaped characters back as themselves.
    generateBundle(_options, bundle) {
      for (const chunk of Object.values(bundle)) {
        if (chunk.type === 'chunk') chunk.code = asciiLiterals(this, chunk.code);
      }
    },
  };
}
