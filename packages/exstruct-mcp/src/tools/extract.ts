import type { FileHandle } from 'node:fs/promises';
import path from 'node:path';
import { z } from 'zod';
import {
  defineTool,
  OUTPUT_FORMATS,
  type OutputFormat,
  type PathPolicy,
  ToolError,
} from '@mcp-workbench/core';
import type { SerializeOptions } from '../extract/extraction.js';
import { EXTRACTION_MODES } from '../extract/modes.js';
import type { ExtractJobOutput } from '../jobs/jobs.js';
import { extractOutputName, sheetFileStem } from '../output/extract-files.js';
import { ON_CONFLICT_POLICIES, type OnConflict } from '../output/on-conflict.js';
import { isOwnOutput, policyAllows, resolveConflict } from '../output/output-path.js';
import { AllOrNothingWriter } from '../output/write-all.js';
import { conflictDefaultText } from './conflict-text.js';
import type { ExstructToolDeps } from './deps.js';

const FORMATS = OUTPUT_FORMATS as readonly [OutputFormat, ...OutputFormat[]];

/**
 * Every file one extraction writes: each is checked, named by the conflict policy and written to its
 * temp file as it comes, and all are put in place together at the end, or none (AllOrNothingWriter).
 */
class OutputPlan {
  private readonly taken = new Set<string>();
  // Written with the server's default mode: never an executable bit taken from a replaced file.
  private readonly writer: AllOrNothingWriter;

  constructor(
    private readonly paths: PathPolicy,
    private readonly policy: OnConflict | undefined,
    private readonly bookName: string,
    readonly warnings: string[],
  ) {
    this.writer = new AllOrNothingWriter(paths, { keepMode: false });
  }

  /** Checks `target`, applies the conflict policy and starts writing; returns the path it will have. */
  async add(
    target: string,
    data: () => Uint8Array | Uint8Array[] | string,
    resolved = false,
  ): Promise<string> {
    const checked = resolved ? target : await this.paths.resolve(target, { kind: 'file' });
    const conflict = await resolveConflict(checked, this.policy, {
      ownedBy: (file) => isOwnOutput(file, this.bookName, this.paths),
      notOwned: `is not an extraction of ${this.bookName}`,
      allowed: policyAllows(this.paths),
      taken: this.taken,
    });
    if (conflict.warning) this.warnings.push(conflict.warning);
    this.taken.add(conflict.path);
    if (!conflict.skip) this.writer.add(conflict.path, data());
    return conflict.path;
  }

  /**
   * Starts the file at `target` (already checked and named by the conflict policy), its content written
   * by `fill` into the open temp file; resolves once `fill` has.
   */
  write(target: string, fill: (handle: FileHandle) => Promise<void>): Promise<void> {
    this.taken.add(target);
    return this.writer.addWritten(target, fill);
  }

  /** Puts every file in place, or none of them. */
  async commit(): Promise<void> {
    await this.writer.commit();
  }

  async abandon(reason: unknown): Promise<void> {
    await this.writer.abandon(reason);
  }
}

export function extractTool(deps: ExstructToolDeps) {
  return defineTool({
    name: 'exstruct_extract',
    title: 'Extract a workbook to JSON/YAML/TOON',
    description:
      'Extract a workbook (.xlsx/.xlsm) to a JSON, YAML or TOON file; returns out_path and sheet names. ' +
      'Flow: exstruct_validate_input → exstruct_extract (mode standard) → exstruct_read_json_chunk, ' +
      'exstruct_read_range or exstruct_read_cells on out_path. Modes: light = values, table candidates, ' +
      'print areas; standard = light + merged cells, shapes, connectors, SmartArt, charts, comments; ' +
      'verbose = standard + all shapes with sizes, hyperlinks, formulas_map, colors_map. Rows are ' +
      '{r: row (1-based), c: {column: value}}, columns 0-based ("0" = A) unless options.alpha_col; dates ' +
      'ISO 8601. Writes {name}.{format} beside the workbook unless out_dir/out_name. ' +
      conflictDefaultText(
        deps.onConflict,
        'An existing file is replaced only if it is an earlier output of this workbook, else {name}_1… is written',
      ),
    // Destructive only when the server was told to overwrite by default: otherwise it replaces nothing
    // but its own earlier outputs unless a call asks for on_conflict="overwrite".
    annotations: {
      readOnlyHint: false,
      destructiveHint: deps.onConflict === 'overwrite',
      idempotentHint: true,
      openWorldHint: false,
    },
    input: {
      xlsx_path: z.string().min(1),
      mode: z.enum(EXTRACTION_MODES).default('standard'),
      format: z.enum(FORMATS).default('json'),
      out_dir: z.string().optional(),
      out_name: z.string().optional(),
      on_conflict: z.enum(ON_CONFLICT_POLICIES).optional(),
      options: z
        .object({
          pretty: z.boolean().default(false),
          indent: z.number().int().min(1).max(8).optional(),
          alpha_col: z
            .boolean()
            .default(false)
            .describe('Column letters as keys, and merged_ranges ("A1:C3") for merged_cells.'),
          sheets_dir: z.string().optional().describe('Also one file per sheet here.'),
          print_areas_dir: z.string().optional().describe('Also one file per print area here.'),
        })
        .strict()
        .default({ pretty: false, alpha_col: false }),
    },
    output: {
      out_path: z.string().describe('Absolute path of the written (or, with skip, existing) output.'),
      workbook_meta: z.object({ sheet_names: z.array(z.string()), sheet_count: z.number().int() }),
      warnings: z.array(z.string()),
      sheet_paths: z.array(z.string()).optional().describe('Files written to sheets_dir.'),
      print_area_paths: z.array(z.string()).optional().describe('Files written to print_areas_dir.'),
    },
    async run(args, { paths, progress, signal }) {
      // A first call's thread loads while the paths are checked and the output is prepared.
      deps.jobs.extract.startForJob();
      const input = await paths.resolve(args.xlsx_path, { mustExist: true, kind: 'file' });
      const policy = args.on_conflict ?? deps.onConflict;
      const dir = args.out_dir
        ? await paths.resolve(args.out_dir, { kind: 'directory' })
        : path.dirname(input);
      const target = await paths.resolve(
        path.join(dir, extractOutputName(input, args.format, args.out_name)),
        {
          kind: 'file',
        },
      );
      // Every output folder is checked before anything is written, so a bad one leaves no stray output.
      const sheetsDir = args.options.sheets_dir
        ? await paths.resolve(args.options.sheets_dir, { kind: 'directory' })
        : undefined;
      const areasDir = args.options.print_areas_dir
        ? await paths.resolve(args.options.print_areas_dir, { kind: 'directory' })
        : undefined;
      // The input is never an output, whatever the names and policies say.
      if (path.resolve(target) === path.resolve(input)) {
        throw new ToolError(
          'INVALID_ARGUMENT',
          `The output would replace the workbook itself (${path.basename(input)}).`,
          {
            hint: 'Choose another out_name or out_dir; extraction never writes over its input.',
          },
        );
      }
      const bookName = path.basename(input);
      const conflict = await resolveConflict(target, policy, {
        ownedBy: (file) => isOwnOutput(file, bookName, paths),
        notOwned: `is not an extraction of ${bookName}`,
        allowed: policyAllows(paths),
      });
      if (conflict.skip) {
        // Nothing is written, but the workbook is still checked and described.
        // The reader loads here, on the server's thread, only when nothing is extracted.
        const { WorkbookReader } = await import('../ooxml/workbook-reader.js');
        const reader = await WorkbookReader.open(input, {}, paths);
        const sheetNames = reader.sheetNames;
        reader.close();
        return {
          out_path: conflict.path,
          workbook_meta: { sheet_names: sheetNames, sheet_count: sheetNames.length },
          warnings: conflict.warning ? [conflict.warning] : [],
        };
      }

      const serialize: SerializeOptions = { pretty: args.options.pretty };
      if (args.options.indent !== undefined) serialize.indent = args.options.indent;
      // Read and serialised on the extraction thread, straight into the output's temp file: the server
      // keeps answering, and a cancel ends the work at once. All or nothing: the outputs are put in
      // place together once the job has succeeded and every one is written.
      const warnings: string[] = [];
      if (conflict.warning) warnings.push(conflict.warning);
      const plan = new OutputPlan(paths, policy, bookName, warnings);
      try {
        let extracted: ExtractJobOutput | undefined;
        await plan.write(conflict.path, async (handle) => {
          extracted = await deps.jobs.extract.run({
            name: 'extract',
            input: {
              file: input,
              mode: args.mode,
              alphaCol: args.options.alpha_col,
              format: args.format,
              serialize,
              sheetFiles: sheetsDir !== undefined,
              printAreaFiles: areasDir !== undefined,
              outputFd: handle.fd,
            },
            open: async () => (await paths.openFile(input)).handle,
            signal,
            writes: true,
          });
        });
        const job = extracted!;
        warnings.unshift(...job.warnings);
        await progress(1, 2, 'extracted');
        const outPath = conflict.path;

        const result: {
          out_path: string;
          workbook_meta: { sheet_names: string[]; sheet_count: number };
          warnings: string[];
          sheet_paths?: string[];
          print_area_paths?: string[];
        } = {
          out_path: outPath,
          workbook_meta: { sheet_names: job.sheetNames, sheet_count: job.sheetNames.length },
          warnings,
        };
        if (sheetsDir) {
          result.sheet_paths = [];
          for (const sheet of job.sheets) {
            const file = path.join(sheetsDir, `${sheetFileStem(sheet.sheetName)}.${args.format}`);
            result.sheet_paths.push(await plan.add(file, () => sheet.data));
          }
        }
        if (areasDir) {
          result.print_area_paths = [];
          if (job.printAreas.length === 0)
            warnings.push('The workbook defines no print areas; print_areas_dir stays empty.');
          for (const { sheet, index, area, data } of job.printAreas) {
            const { r1, r2, c1, c2 } = area;
            const name = `${sheetFileStem(sheet)}_area${index}_r${r1}-${r2}_c${c1}-${c2}.${args.format}`;
            result.print_area_paths.push(await plan.add(path.join(areasDir, name), () => data));
          }
        }
        await plan.commit();
        await progress(2, 2, 'written');
        return result;
      } catch (error) {
        await plan.abandon(error);
        throw error;
      }
    },
  });
}
