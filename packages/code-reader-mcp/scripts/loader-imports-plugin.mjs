// A tsdown (rolldown) plugin for dist/server-bundle.cjs: every dynamic `import()` in the bundle goes
// through `__loaderImport`, an argument the bin's loader passes (src/start/code-cache.ts). On Node 20,
// code that V8 deserialized from a code cache has lost vm.Script's import() callback (the import
// rejects with ERR_VM_DYNAMIC_IMPORT_CALLBACK_MISSING; Node 24 keeps it), and ripgrep, tree-sitter and
// the tokenizer are imported that way. Loaded by a plain require (Node ≥ 22), the bundle has no such
// argument and uses import() itself.

function importExpressions(node, found) {
  if (Array.isArray(node)) {
    for (const child of node) importExpressions(child, found);
  } else if (node && typeof node === 'object') {
    if (node.type === 'ImportExpression') found.push(node);
    for (const key in node) if (key !== 'parent') importExpressions(node[key], found);
  }
  return found;
}

export function loaderImports() {
  return {
    name: 'code-reader-loader-imports',
    renderChunk(code) {
      const found = importExpressions(this.parse(code), []);
      if (found.length === 0) return null;
      let out = code;
      for (const node of found.sort((a, b) => b.start - a.start)) {
        if (node.options) this.error('import() with options is not routed through the loader');
        const specifier = code.slice(node.source.start, node.source.end);
        out = `${out.slice(0, node.start)}__importEsm(${specifier})${out.slice(node.end)}`;
      }
      const define =
        "var __importEsm = typeof __loaderImport === 'function' ? __loaderImport : (specifier) => import(specifier);\n";
      const directive = /^(['"])use strict\1;?\n?/.exec(out);
      return directive ? directive[0] + define + out.slice(directive[0].length) : define + out;
    },
  };
}
