// Builds native/rows-kernel.wasm from native/rows-kernel.c (the WebAssembly row kernel, see wasm-rows.ts).
// The .wasm is checked in, so users and CI without clang get it; `--check` builds into a temporary folder
// and fails unless the result is byte for byte the checked-in file (skipped, exit 0, without clang-14).
//
// Reproducible: the same clang and wasm-ld (LLVM 14) and flags, the source compiled by its bare name from
// its own folder, no debug information, and --strip-all drops every custom section (names, producers),
// so nothing of the machine, the path or the time ends up in the file.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const native = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', 'native');
const CLANG = process.env.CLANG ?? 'clang-14';
const WASM_LD = process.env.WASM_LD ?? '/usr/lib/llvm-14/bin/wasm-ld';
const FLAGS = [
  '--target=wasm32',
  '-O3',
  '-msimd128',
  '-mbulk-memory',
  '-nostdlib',
  '-ffreestanding',
  '-fno-builtin-memcpy',
  '-Wall',
  '-Werror',
  '-Wno-unused-function',
  '-Wl,--no-entry',
  '-Wl,--export-dynamic',
  // 4 MiB to start; at most 1 GiB (a sheet that needs more is read by the JS parser).
  '-Wl,--initial-memory=4194304',
  '-Wl,--max-memory=1073741824',
  '-Wl,--strip-all',
];

/** Whether the toolchain is here. */
export function toolchainAvailable() {
  try {
    execFileSync(CLANG, ['--version'], { stdio: 'ignore' });
    return existsSync(WASM_LD);
  } catch {
    return false;
  }
}

/** Builds the kernel into `out` (a path). */
export function buildRowsKernel(out) {
  execFileSync(CLANG, [...FLAGS, `-fuse-ld=${WASM_LD}`, '-o', out, 'rows-kernel.c'], {
    cwd: native,
    stdio: ['ignore', 'inherit', 'inherit'],
  });
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const checked = path.join(native, 'rows-kernel.wasm');
  if (!process.argv.includes('--check')) {
    buildRowsKernel(checked);
    console.log(`built ${path.relative(process.cwd(), checked)} (${readFileSync(checked).length} bytes)`);
  } else if (!toolchainAvailable()) {
    console.log(`build-rows-kernel --check: skipped (${CLANG} or ${WASM_LD} not found)`);
  } else {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'rows-kernel-'));
    try {
      const out = path.join(dir, 'rows-kernel.wasm');
      buildRowsKernel(out);
      if (!readFileSync(out).equals(readFileSync(checked))) {
        console.error(
          'native/rows-kernel.wasm is not what native/rows-kernel.c builds: run node scripts/build-rows-kernel.mjs',
        );
        process.exitCode = 1;
      } else console.log('native/rows-kernel.wasm is what native/rows-kernel.c builds');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }
}
