import { z } from 'zod';
import { defineTool, OUTPUT_FORMATS } from '@mcp-workbench/core';
import { EXTRACTION_MODES, MODE_SUMMARY } from '../extract/modes.js';
import { DEFAULT_POLICY_NAME } from '../output/output-path.js';
import type { ExstructToolDeps } from './deps.js';
import { PACKAGE_NAME, PACKAGE_VERSION } from '../version.js';
import { MAX_IMAGES } from '../render/limits.js';
import { MAX_ANSWER_BYTES } from './answer-size.js';
import { MAX_CHUNK_BYTES, MAX_RANGE_CELLS } from './read-schemas.js';

export function getRuntimeInfoTool(deps: ExstructToolDeps) {
  return defineTool({
    name: 'exstruct_get_runtime_info',
    title: 'Server runtime information',
    description:
      'Version, allowed roots (every path must be inside one), default on_conflict, formats, modes and ' +
      'limits. Call it when unsure where files may be read or written.',
    annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
    input: {},
    output: {
      name: z.string(),
      version: z.string(),
      node_version: z.string(),
      platform: z.string(),
      roots: z.array(z.string()),
      default_on_conflict: z.string(),
      supported_formats: z.array(z.string()),
      output_formats: z.array(z.string()),
      modes: z.array(z.object({ mode: z.string(), contents: z.string() })),
      limits: z.object({
        max_part_bytes: z.number(),
        max_total_bytes: z.number(),
        max_compression_ratio: z.number(),
        max_answer_bytes: z.number(),
        max_chunk_bytes: z.number(),
        max_range_cells: z.number(),
        max_images: z.number(),
      }),
    },
    async run(_args, { paths }) {
      // The package reader's modules (for two constants) load with this call, not with the server.
      const { SUPPORTED_EXTENSIONS } = await import('../ooxml/open-package.js');
      const { DEFAULT_ZIP_LIMITS } = await import('../ooxml/zip-archive.js');
      return {
        name: PACKAGE_NAME,
        version: PACKAGE_VERSION,
        node_version: process.version,
        platform: process.platform,
        roots: paths.roots,
        default_on_conflict: deps.onConflict ?? DEFAULT_POLICY_NAME,
        supported_formats: [...SUPPORTED_EXTENSIONS],
        output_formats: [...OUTPUT_FORMATS],
        modes: EXTRACTION_MODES.map((mode) => ({ mode, contents: MODE_SUMMARY[mode] })),
        limits: {
          max_part_bytes: DEFAULT_ZIP_LIMITS.maxEntryBytes,
          max_total_bytes: DEFAULT_ZIP_LIMITS.maxTotalBytes,
          max_compression_ratio: DEFAULT_ZIP_LIMITS.maxRatio,
          max_answer_bytes: MAX_ANSWER_BYTES,
          max_chunk_bytes: MAX_CHUNK_BYTES,
          max_range_cells: MAX_RANGE_CELLS,
          max_images: MAX_IMAGES,
        },
      };
    },
  });
}
