import { defineTool } from '@mcp-workbench/core';
import { z } from 'zod';
import type { Engine } from '../engine/engine.js';
import { setupProject } from '../engine/projects.js';
import { message } from './schemas.js';

export function setupProjectTool(engine: Engine) {
  return defineTool({
    name: 'setup_project',
    title: 'Set up a project',
    description:
      'Register a new project and make it the current one. Checks first: an existing project id → success=false, ' +
      'duplicate_id=true (use update_project instead); the same name or similar projects (name + description, ' +
      'similarity ≥ similarity_threshold) → requires_confirmation=true and nothing is created: ask the user, then ' +
      'call again with force=true. spreadsheet_id / root_folder_id are only needed by the Google backend; the ' +
      'local store keeps them if given. Creates the summary/progress/catalog views and the 設計書/実装手順書 folders.',
    annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
    input: {
      project: z.string().describe('Project id, letters and digits only (英数字), e.g. "trapxtrap".'),
      name: z.string().describe('Display name, e.g. "TrapxTrapCpp".'),
      spreadsheet_id: z
        .string()
        .optional()
        .describe('Google Sheets id (Google backend; kept by the local store).'),
      root_folder_id: z
        .string()
        .optional()
        .describe('Google Drive root folder id (Google backend; kept by the local store).'),
      description: z.string().optional().describe('What the project is; used for the similarity check.'),
      create_sheets: z.boolean().optional().describe('Create the サマリ/進捗/目録 views (default true).'),
      create_folders: z.boolean().optional().describe('Create the 設計書/実装手順書 folders (default true).'),
      force: z
        .boolean()
        .optional()
        .describe('Create even if the name is taken or similar projects exist (default false).'),
      similarity_threshold: z
        .number()
        .min(0)
        .max(1)
        .optional()
        .describe('Projects at least this similar are reported (0.0–1.0, default 0.7).'),
    },
    output: {
      success: z.boolean(),
      project_id: z.string(),
      name: z.string(),
      sheets_created: z.array(z.string()),
      folders_created: z.array(z.string()),
      message,
      requires_confirmation: z.boolean(),
      duplicate_id: z.boolean(),
      duplicate_name: z.string().describe('Id of the project that already has this name ("" if none).'),
      similar_projects: z.array(
        z.object({
          project_id: z.string(),
          name: z.string(),
          description: z.string(),
          similarity: z.number(),
        }),
      ),
    },
    async run(args) {
      return setupProject(engine, args);
    },
  });
}
