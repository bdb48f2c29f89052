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
      'Register a project and make it current. An existing id → success=false, duplicate_id=true (use ' +
      'update_project). The same name or similar projects → requires_confirmation=true, nothing created: ask the ' +
      'user, then call again with force=true. Creates the 設計書/実装手順書 folders and the サマリ/進捗/目録 views.',
    annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
    input: {
      project: z.string().describe('Id: letters and digits, e.g. "trapxtrap".'),
      name: z.string().describe('Display name.'),
      spreadsheet_id: z.string().optional().describe('Google backend only.'),
      root_folder_id: z.string().optional().describe('Google backend only.'),
      description: z.string().optional(),
      create_sheets: z.boolean().optional().describe('Default true.'),
      create_folders: z.boolean().optional().describe('Default true.'),
      force: z.boolean().optional().describe('Create despite a taken name or similar projects.'),
      similarity_threshold: z.number().min(0).max(1).optional().describe('Default 0.7.'),
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
