import { ToolError, type AnyTool, type ToolContext } from '@mcp-workbench/core';
import type { Engine } from '../engine/engine.js';
import type { SaveTriggers } from '../engine/save-triggers.js';
import { addKnowledgeTool } from './add-knowledge.js';
import { createDocumentTool } from './create-document.js';
import { deleteProjectTool } from './delete-project.js';
import { endSessionTool } from './end-session.js';
import { getDocumentTool } from './get-document.js';
import { getProgressTool } from './get-progress.js';
import { listProjectsTool } from './list-projects.js';
import { saveSessionTool } from './save-session.js';
import { searchCatalogTool } from './search-catalog.js';
import { searchKnowledgeTool } from './search-knowledge.js';
import { setupProjectTool } from './setup-project.js';
import { startSessionTool } from './start-session.js';
import { switchProjectTool } from './switch-project.js';
import { syncCatalogTool } from './sync-catalog.js';
import { updateDocumentTool } from './update-document.js';
import { updateKnowledgeTool } from './update-knowledge.js';
import { updateProgressTool } from './update-progress.js';
import { updateProjectTool } from './update-project.js';

/** The argument (`new_task.name`, `tags[2]`) holding a NUL character, if any. */
function nulIn(value: unknown, at: string): string | undefined {
  if (typeof value === 'string') return value.includes('\u0000') ? at : undefined;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const found = nulIn(value[i], `${at}[${i}]`);
      if (found) return found;
    }
  } else if (value && typeof value === 'object') {
    for (const [key, item] of Object.entries(value)) {
      const found = nulIn(item, at ? `${at}.${key}` : key);
      if (found) return found;
    }
  }
  return undefined;
}

/**
 * After each call the save triggers run; a save they make is announced at the end of the answer's
 * message. Before it, an argument with a NUL character is refused: no text needs one, and PostgreSQL
 * cannot store it, so every store answers alike.
 */
function withSaveTriggers(tool: AnyTool, triggers: SaveTriggers): AnyTool {
  return {
    ...tool,
    async run(args: never, context: ToolContext) {
      const nul = nulIn(args, '');
      if (nul) {
        throw new ToolError('INVALID_ARGUMENT', `${nul} contains a NUL character (U+0000).`, {
          hint: 'Remove the NUL characters; text never needs them.',
          details: { field: nul },
        });
      }
      const result = (await tool.run(args, context)) as { message?: unknown };
      const notice = await triggers.afterCall(tool.name, JSON.stringify(result));
      if (notice && typeof result.message === 'string') result.message = `${result.message}\n${notice}`;
      return result;
    },
  };
}

/** The spec's 17 tools, in the spec's order, then update_knowledge (the lifecycle's 更新 and 削除). */
export function allTools(engine: Engine, triggers: SaveTriggers): AnyTool[] {
  return [
    setupProjectTool(engine),
    switchProjectTool(engine),
    listProjectsTool(engine),
    updateProjectTool(engine),
    deleteProjectTool(engine),
    startSessionTool(engine),
    endSessionTool(engine),
    saveSessionTool(engine),
    getDocumentTool(engine),
    createDocumentTool(engine),
    updateDocumentTool(engine),
    searchCatalogTool(engine),
    syncCatalogTool(engine),
    getProgressTool(engine),
    updateProgressTool(engine),
    addKnowledgeTool(engine),
    searchKnowledgeTool(engine),
    updateKnowledgeTool(engine),
  ].map((tool) => withSaveTriggers(tool, triggers));
}
