import path from 'node:path';
import { z } from 'zod';
import { defineTool, withImages, type ReplyImage } from '@mcp-workbench/core';
import { policyAllows, resolveConflict } from '../output/output-path.js';
import { AllOrNothingWriter } from '../output/write-all.js';
import { MAX_DPI, MIN_DPI } from '../render/limits.js';
import { pngTextChunks } from '../render/png-text.js';
import type { ExstructToolDeps } from './deps.js';

/** An image is sent inline (besides its file) when it is the only one and this small. */
const INLINE_MAX_BYTES = 750_000;
const INLINE_MAX_PIXELS = 1_600_000;

/** `Sheet/1` → `Sheet_1`: the characters file systems refuse become `_` (as the original does). */
export function safeSheetFileName(name: string): string {
  const safe = [...name].map((ch) => (ch < ' ' || '\\/:*?"<>|'.includes(ch) ? '_' : ch)).join('');
  return safe.trim() || 'sheet';
}

/**
 * `01_Sheet1.png`; an image of an asked range names its cells too (`01_Sheet1_A1-C3.png`), so that a range
 * drawn later does not replace the whole sheet's image of the same number.
 */
function imageFileName(index: number, sheet: string, range: string | undefined): string {
  const cells = range ? `_${range.replace(':', '-')}` : '';
  return `${String(index).padStart(2, '0')}_${safeSheetFileName(sheet)}${cells}.png`;
}

/** Why a single image did not come back inline, and the dpi at which it would. */
function notInlined(image: { png: Buffer; width: number; height: number }, dpi: number): string {
  const scale = Math.min(
    Math.sqrt(INLINE_MAX_PIXELS / (image.width * image.height)),
    Math.sqrt(INLINE_MAX_BYTES / image.png.length),
  );
  const lower = Math.floor(dpi * scale);
  const megapixels = ((image.width * image.height) / 1e6).toFixed(1);
  return (
    `The image (${image.width}×${image.height} px, ${megapixels} MP, ${Math.ceil(image.png.length / 1024)} KB) is only in ` +
    `image_paths: an image comes back inline up to 1.6 MP and 750 KB. ` +
    (lower >= MIN_DPI
      ? `Pass dpi ${lower} or less, or a smaller range, to see it here.`
      : 'Pass a smaller range to see it here.')
  );
}

export function captureSheetImagesTool(deps: ExstructToolDeps) {
  return defineTool({
    name: 'exstruct_capture_sheet_images',
    title: 'Draw sheets as PNG images',
    description:
      'Render sheets or a range to PNG as Excel shows them (cells, formats, merges, shapes; no Excel ' +
      'needed) to check a layout by eye. No range: each visible sheet, by print area or used range, in ' +
      'pages. Writes NN_sheet.png to out_dir (default {name}_images beside the workbook); a single ' +
      'small image is also returned inline.',
    // As exstruct_extract: destructive only when the server replaces any file by default.
    annotations: {
      readOnlyHint: false,
      destructiveHint: deps.onConflict === 'overwrite',
      idempotentHint: true,
      openWorldHint: false,
    },
    input: {
      xlsx_path: z.string().min(1),
      sheet: z.string().optional(),
      range: z.string().optional().describe("A1:B2 or 'Sheet 1'!A1:B2"),
      dpi: z.number().int().min(MIN_DPI).max(MAX_DPI).default(144),
      out_dir: z.string().optional(),
    },
    output: { out_dir: z.string(), image_paths: z.array(z.string()), warnings: z.array(z.string()) },
    async run(args, { paths, signal }) {
      const input = await paths.resolve(args.xlsx_path, { mustExist: true, kind: 'file' });
      const stem = path.basename(input, path.extname(input));
      const outDir = await paths.resolve(args.out_dir ?? path.join(path.dirname(input), `${stem}_images`), {
        kind: 'directory',
      });
      const bookName = path.basename(input);
      const job = await deps.jobs.extract.run({
        name: 'capture',
        input: { file: input, request: { sheet: args.sheet, range: args.range, dpi: args.dpi } },
        open: async () => (await paths.openFile(input)).handle,
        signal,
      });
      const warnings = [...job.warnings];
      const writer = new AllOrNothingWriter(paths, { keepMode: false });
      const taken = new Set<string>();
      const written: string[] = [];
      try {
        await paths.makeDirectory(outDir);
        let index = 0;
        for (const image of job.images) {
          const name = imageFileName(++index, image.sheet, args.range ? image.range : undefined);
          const target = await paths.resolve(path.join(outDir, name), { kind: 'file' });
          // A file is replaced only when it is an earlier image of this workbook (or the server says so).
          const conflict = await resolveConflict(target, deps.onConflict, {
            ownedBy: async (file) =>
              pngTextChunks(await paths.readFile(file, { maxBytes: 64 << 20 }))['exstruct:source'] ===
              bookName,
            notOwned: `is not an image of ${bookName}`,
            allowed: policyAllows(paths),
            taken,
          });
          if (conflict.warning) warnings.push(conflict.warning);
          taken.add(conflict.path);
          if (conflict.skip) continue;
          writer.add(conflict.path, image.png);
          written.push(conflict.path);
        }
        await writer.commit();
      } catch (error) {
        await writer.abandon(error);
        throw error;
      }
      const result = { out_dir: outDir, image_paths: written, warnings };
      const only = job.images.length === 1 ? job.images[0] : undefined;
      if (only && only.png.length <= INLINE_MAX_BYTES && only.width * only.height <= INLINE_MAX_PIXELS) {
        const image: ReplyImage = { data: Buffer.from(only.png).toString('base64'), mimeType: 'image/png' };
        return withImages(result, [image]);
      }
      if (only) warnings.push(notInlined(only, args.dpi));
      return result;
    },
  });
}
