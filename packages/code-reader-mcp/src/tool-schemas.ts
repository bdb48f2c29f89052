// tools/list's JSON Schemas, converted from the tools' zod schemas at build time
// (scripts/write-tool-schemas.mjs writes dist/tool-schemas.json beside the server and its bundle), so a
// start does not spend tens of milliseconds converting them (issue 13: start → first tools/list).
// Calls are still validated with the zod schemas. Without the file (tests running src/) core converts.
import { readFileSync } from 'node:fs';
import type { PrecomputedSchemas } from '@mcp-workbench/core';

export const TOOL_SCHEMAS_FILE = 'tool-schemas.json';

let built: PrecomputedSchemas | null | undefined;

export function builtToolSchemas(): PrecomputedSchemas | undefined {
  if (built === undefined) {
    try {
      built = JSON.parse(
        readFileSync(new URL(`./${TOOL_SCHEMAS_FILE}`, import.meta.url), 'utf8'),
      ) as PrecomputedSchemas;
    } catch {
      built = null; // not built (src/ under test), or unreadable: convert at start
    }
  }
  return built ?? undefined;
}
