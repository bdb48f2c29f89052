// The WebAssembly row kernel (native/rows-kernel.c): compiled once per thread, on the first sheet that asks
// for it (sheets under 1 MiB of XML never do: see fast-scan.ts); an instance serves the sheets of one
// extraction and is dropped when the extraction ends, as WebAssembly memory never shrinks.
import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { SinkConfig } from './cell-sink.js';
import type { WorkbookValues } from './row-store.js';

/**
 * The kernel beside this module in dist (the build copies it there, beside the extraction thread's
 * bundle), or the checked-in one when running from src (tests).
 */
const KERNEL_FILES = [
  new URL('./rows-kernel.wasm', import.meta.url),
  new URL('../../native/rows-kernel.wasm', import.meta.url),
];

// WebAssembly is a global of Node; the package's TypeScript lib settings do not declare it.
type WasmModule = object;
const wasm = (
  globalThis as unknown as {
    WebAssembly: {
      Module: new (bytes: Uint8Array) => WasmModule;
      Instance: new (module: WasmModule, imports: object) => { exports: unknown };
      RuntimeError: abstract new (...args: never[]) => Error;
    };
  }
).WebAssembly;

/** A trap in the kernel (out of bounds, unreachable, ...). */
export const WasmRuntimeError = wasm.RuntimeError;

/** The kernel's exports (see rows-kernel.c). Pointers are byte offsets into `memory`. */
export interface KernelExports {
  memory: { readonly buffer: ArrayBuffer };
  alloc(n: number): number;
  set_max_bytes(bytes: number): void;
  init(outCap: number): number;
  reset(): void;
  keep(): void;
  reuse(): number;
  configure(
    dateKind: number,
    bordered: number,
    nStyles: number,
    sharedOff: number,
    sharedBlob: number,
    sharedCount: number,
    alpha: number,
    date1904: number,
    prefix: number,
    prefixLen: number,
    prefixes: number,
    prefixesLen: number,
  ): number;
  begin(expectedCells: number): number;
  in_ptr(): number;
  feed(n: number): number;
  finish(): number;
  err_code(): number;
  ordered(): number;
  json_bytes(): number;
  row_count(): number;
  cell_count(): number;
  border_count(): number;
  p_row_numbers(): number;
  p_row_start(): number;
  p_cols(): number;
  p_kinds(): number;
  p_nums(): number;
  p_borders(): number;
  text_count(): number;
  p_text_off(): number;
  p_texts(): number;
  date_json(serial: number, time: number, out: number): number;
}

/** A workbook's configuration in the kernel's memory: where its parts lie. */
export interface WorkbookLayout {
  config: SinkConfig;
  values: WorkbookValues;
  dateKind: number;
  bordered: number;
  sharedOff: number;
  sharedBlob: number;
}

/** What the kernel calls back during feed/finish: the parser reading the current sheet. */
export interface KernelClient {
  drain(bytes: Uint8Array): void;
  rowHeight(row: number, height: number): void;
}

/** Bytes of JSON the kernel collects before handing them to the sink. */
const OUT_CAP = 256 * 1024;

export class RowsKernel {
  readonly x: KernelExports;
  /** The sheet being read (set by its parser for the length of each call into the kernel). */
  client: KernelClient | undefined;
  /** A sheet is being read: a second one at once (another call on this thread) takes the JS parser. */
  busy = false;
  /** The workbook whose configuration is in memory (see reuse() in rows-kernel.c). */
  workbook: WorkbookLayout | undefined;

  constructor(module: WasmModule) {
    const utf8 = new TextEncoder();
    const bytes = (ptr: number, len: number) => new Uint8Array(this.x.memory.buffer, ptr, len);
    const env = {
      // `+text`, as FastRowParser converts a row height or an unusual number.
      js_parse: (ptr: number, len: number) => +Buffer.from(this.x.memory.buffer, ptr, len).toString('latin1'),
      // String(number), as FastRowParser writes a number whose text is not JSON's; at most 32 bytes.
      js_format: (value: number, ptr: number) => utf8.encodeInto(String(value), bytes(ptr, 32)).written,
      js_drain: (ptr: number, len: number) => this.client?.drain(bytes(ptr, len)),
      js_row_height: (row: number, height: number) => this.client?.rowHeight(row, height),
    };
    this.x = new wasm.Instance(module, { env }).exports as KernelExports;
    this.x.set_max_bytes(maxBytes);
    if (this.x.init(OUT_CAP) !== 0) throw new RangeError('rows kernel: no memory for its buffers');
  }

  bytes(ptr: number, len: number): Uint8Array {
    return new Uint8Array(this.x.memory.buffer, ptr, len);
  }
}

export const rowsKernelStats = {
  /** Instances made on this thread. */
  instances: 0,
  /** Sheets read to the end by the kernel. */
  sheets: 0,
  /** Sheets it handed back to the JS parser (valid markup it does not read, no memory, a trap). */
  fallbacks: 0,
};

let module: WasmModule | null | undefined;
let instance: RowsKernel | undefined;
/** The memory cap of instances made from now on (0: the module's own, 1 GiB). */
let maxBytes = 0;

/** This thread's kernel, made on first use; undefined when there is none (no file, no memory). */
export function rowsKernel(): RowsKernel | undefined {
  if (instance) return instance;
  if (module === undefined) module = compile();
  if (!module) return undefined;
  try {
    instance = new RowsKernel(module);
    rowsKernelStats.instances++;
  } catch {
    return undefined; // no memory for an instance now: the JS parser reads the sheet
  }
  return instance;
}

/**
 * Drops this thread's instance once an extraction is over: its memory (~30 MB after a million cells) goes
 * with it instead of staying with an idle server. A sheet still being read keeps its own.
 */
export function releaseRowsKernel(): void {
  instance = undefined;
}

/** Caps the memory of the instances made from now on (tests of a kernel that runs out of memory). */
export function setRowsKernelMaxBytes(bytes: number): void {
  maxBytes = bytes;
  instance = undefined;
}

/** Drops the instance (after a trap its state is unknown); the next sheet makes a new one. */
export function discardRowsKernel(kernel: RowsKernel): void {
  if (instance === kernel) instance = undefined;
}

function compile(): WasmModule | null {
  for (const url of KERNEL_FILES) {
    const file = fileURLToPath(url);
    if (!existsSync(file)) continue;
    try {
      return new wasm.Module(readFileSync(file));
    } catch {
      return null;
    }
  }
  return null;
}
