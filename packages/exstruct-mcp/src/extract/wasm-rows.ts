// FastRowParser's job done by the WebAssembly row kernel (rows-kernel.ts, native/rows-kernel.c): the same
// pieces in, the same FastRows out (columns copied out of the kernel's memory), the same JSON bytes into
// the same ByteSink. FastRowParser (fast-rows.ts) is the reference: where the kernel refuses markup
// FastRowParser refuses, this throws NotFast; where it cannot finish a sheet FastRowParser would read
// (valid markup it does not read, no memory, a trap), it throws KernelFallback and the caller reads the
// sheet again with FastRowParser.
import { checkRowsNamespace, NotFast, type FastRows, type FastRowsOptions } from './fast-rows.js';
import {
  discardRowsKernel,
  rowsKernel,
  rowsKernelStats,
  WasmRuntimeError,
  type RowsKernel,
  type WorkbookLayout,
} from './rows-kernel.js';
import type { SinkConfig } from './cell-sink.js';
import type { WorkbookValues } from './row-store.js';

/** The kernel cannot finish this sheet: read it again from its start with FastRowParser. */
export class KernelFallback extends Error {
  override name = 'KernelFallback';
}

const NOT_FAST = -1;
/** The most the kernel takes in one feed (PIECE_MAX in rows-kernel.c). */
const PIECE_MAX = 1 << 20;

type Options = Pick<
  FastRowsOptions,
  'config' | 'values' | 'prefix' | 'scope' | 'info' | 'json' | 'expectedCells'
>;

export class WasmRowParser {
  private done = false;

  private constructor(
    private readonly kernel: RowsKernel,
    private readonly options: Options,
  ) {}

  /**
   * A parser on this thread's kernel, or undefined when there is none free (no kernel file, no memory,
   * a sheet already being read, a configuration it does not take): the caller uses FastRowParser.
   * Throws NotFast as FastRowParser's constructor does.
   */
  static create(options: Options): WasmRowParser | undefined {
    checkRowsNamespace(options.scope, options.prefix);
    const kernel = rowsKernel();
    if (!kernel || kernel.busy) return undefined;
    const parser = new WasmRowParser(kernel, options);
    try {
      if (!parser.start()) return undefined;
    } catch {
      discardRowsKernel(kernel); // nothing was read yet: FastRowParser reads the sheet
      return undefined;
    }
    kernel.busy = true;
    return parser;
  }

  write(piece: Buffer): void {
    for (let at = 0; at < piece.length; at += PIECE_MAX) {
      const part = piece.subarray(at, Math.min(at + PIECE_MAX, piece.length));
      this.call(() => {
        const x = this.kernel.x;
        this.kernel.bytes(x.in_ptr(), part.length).set(part);
        return x.feed(part.length);
      });
    }
  }

  end(): FastRows {
    this.call(() => this.kernel.x.finish());
    let result: FastRows;
    try {
      result = this.result();
    } catch (error) {
      this.abandon(error);
    }
    this.release();
    rowsKernelStats.sheets++;
    return result;
  }

  private result(): FastRows {
    const x = this.kernel.x;
    const rows = x.row_count();
    const cells = x.cell_count();
    const buffer = x.memory.buffer;
    // Copies: the kernel's memory is the next sheet's.
    return {
      segment: {
        rowNumbers: new Int32Array(buffer, x.p_row_numbers(), rows).slice(),
        rowStart: new Int32Array(buffer, x.p_row_start(), rows + 1).slice(),
        cols: new Int32Array(buffer, x.p_cols(), cells).slice(),
        kinds: new Uint8Array(buffer, x.p_kinds(), cells).slice(),
        nums: new Float64Array(buffer, x.p_nums(), cells).slice(),
        texts: this.texts(),
      },
      borders:
        x.border_count() > 0
          ? new Int32Array(buffer, x.p_borders(), x.border_count()).slice()
          : new Int32Array(0),
      ordered: x.ordered() === 1,
      jsonBytes: this.options.json ? x.json_bytes() : 0,
    };
  }

  /** The sheet's texts (`t="str"` values), which the kernel kept as UTF-8 it checked. */
  private texts(): string[] {
    const x = this.kernel.x;
    const count = x.text_count();
    if (count === 0) return [];
    const offsets = new Int32Array(x.memory.buffer, x.p_text_off(), count + 1);
    const bytes = Buffer.from(x.memory.buffer, x.p_texts(), offsets[count]);
    const texts = new Array<string>(count);
    for (let k = 0; k < count; k++) texts[k] = bytes.toString('utf8', offsets[k], offsets[k + 1]);
    return texts;
  }

  /** Frees the kernel for the next sheet (also when the stream stopped: a cancelled call, an error). */
  release(): void {
    if (this.done) return;
    this.done = true;
    this.kernel.busy = false;
    this.kernel.client = undefined;
  }

  /** Lays out the sheet's configuration in the kernel's memory; false when it does not take it. */
  private start(): boolean {
    const { kernel, options } = this;
    const x = kernel.x;
    const { config, values } = options;
    // The workbook's styles and shared strings stay from one of its sheets to the next.
    let layout =
      kernel.workbook?.config === config && kernel.workbook.values === values ? kernel.workbook : undefined;
    if (!layout || x.reuse() !== 0) {
      kernel.workbook = undefined;
      x.reset();
      layout = layOutWorkbook(kernel, config, values);
      if (!layout) return false;
      x.keep();
      kernel.workbook = layout;
    }
    const prefix = Buffer.from(options.prefix, 'latin1');
    // Prefixes in scope, each as its length and its bytes; `xml` is always declared.
    const names = [...new Set(['xml', ...options.scope.keys()])].filter((name) =>
      /^[\x21-\x7e]{1,255}$/.test(name),
    );
    const prefixes = Buffer.concat(
      names.map((name) => Buffer.concat([Buffer.of(name.length), Buffer.from(name, 'latin1')])),
    );
    const at = x.alloc(prefix.length + prefixes.length + 2);
    if (at === 0) return false;
    kernel.bytes(at, prefix.length).set(prefix);
    kernel.bytes(at + prefix.length, prefixes.length).set(prefixes);
    if (
      x.configure(
        layout.dateKind,
        layout.bordered,
        config.dateKind.length,
        layout.sharedOff,
        layout.sharedBlob,
        config.sharedCount,
        options.json?.alpha === true ? 1 : 0,
        values.date1904 ? 1 : 0,
        at,
        prefix.length,
        at + prefix.length,
        prefixes.length,
      ) !== 0
    )
      return false;
    if (x.begin(Math.max(0, Math.min(2 ** 30, Math.floor(options.expectedCells ?? 1024)))) !== 0)
      return false;
    kernel.client = {
      drain: (bytes) => options.json?.sink.write(bytes),
      rowHeight: (row, height) => options.info.rowHeights.set(row, height),
    };
    return true;
  }

  /** One call into the kernel: its refusals and traps become NotFast or KernelFallback. */
  private call(run: () => number): void {
    if (this.done) throw new KernelFallback('rows kernel: the sheet was already given up');
    let rc: number;
    try {
      rc = run();
    } catch (error) {
      this.abandon(error);
    }
    if (rc >= 0) return;
    this.release();
    if (rc === NOT_FAST) throw new NotFast();
    rowsKernelStats.fallbacks++;
    throw new KernelFallback(`rows kernel: code ${rc}`);
  }

  /**
   * The kernel threw: a trap (or a failed memory growth) is a fallback to FastRowParser; anything else
   * (the sink's own errors) goes on as it would from FastRowParser. Either way the instance is dropped,
   * as its state is unknown.
   */
  private abandon(error: unknown): never {
    this.release();
    discardRowsKernel(this.kernel);
    if (error instanceof WasmRuntimeError || error instanceof RangeError) {
      rowsKernelStats.fallbacks++;
      throw new KernelFallback('rows kernel: trapped', { cause: error });
    }
    throw error;
  }
}

/** Copies the styles' date kinds and borders and the shared strings' JSON into the kernel's memory. */
function layOutWorkbook(
  kernel: RowsKernel,
  config: SinkConfig,
  values: WorkbookValues,
): WorkbookLayout | undefined {
  const x = kernel.x;
  const styles = config.dateKind.length;
  const count = config.sharedCount;
  const jsons = new Array<Uint8Array>(count);
  let total = 0;
  for (let i = 0; i < count; i++) total += (jsons[i] = values.sharedJsonBytes(i)).length;
  // 16 and 64 bytes of slack: the kernel copies short values 16 bytes at a time.
  const layout: WorkbookLayout = {
    config,
    values,
    dateKind: x.alloc(styles + 16),
    bordered: x.alloc(styles + 16),
    sharedOff: x.alloc(4 * (count + 1)),
    sharedBlob: x.alloc(total + 64),
  };
  if (!layout.dateKind || !layout.bordered || !layout.sharedOff || !layout.sharedBlob) return undefined;
  kernel.bytes(layout.dateKind, styles).set(config.dateKind);
  kernel.bytes(layout.bordered, styles).set(config.bordered);
  const offsets = new Uint32Array(x.memory.buffer, layout.sharedOff, count + 1);
  const blob = kernel.bytes(layout.sharedBlob, total);
  let at = 0;
  for (let i = 0; i < count; i++) {
    offsets[i] = at;
    blob.set(jsons[i]!, at);
    at += jsons[i]!.length;
  }
  offsets[count] = at;
  return layout;
}
