import { defineTool } from '@mcp-workbench/core';
import { z } from 'zod';
import type { Engine } from '../engine/engine.js';
import { updateProject } from '../engine/projects.js';
import { message } from './schemas.js';

export function updateProjectTool(engine: Engine) {
  return defineTool({
    name: 'update_project',
    title: 'Update project settings',
    description:
      "Change a project's settings: only the fields given change (sheets, drive, docs and options too); " +
      'updated_fields lists what changed.',
    annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false },
    input: {
      project: z.string(),
      name: z.string().optional(),
      description: z.string().optional(),
      spreadsheet_id: z.string().optional(),
      root_folder_id: z.string().optional(),
      sheets: z
        .object({ summary: z.string(), progress: z.string(), catalog: z.string() })
        .partial()
        .strict()
        .optional(),
      drive: z
        .object({ design_folder: z.string(), procedure_folder: z.string() })
        .partial()
        .strict()
        .optional()
        .describe('Folder names for new documents.'),
      docs: z
        .object({ template_folder_id: z.string(), default_template: z.string() })
        .partial()
        .strict()
        .optional(),
      options: z
        .record(z.string(), z.union([z.boolean(), z.string(), z.number()]))
        .optional()
        .describe('e.g. {"auto_sync_catalog": false}.'),
    },
    output: { success: z.boolean(), project_id: z.string(), updated_fields: z.array(z.string()), message },
    async run(args) {
      return updateProject(engine, args);
    },
  });
}
