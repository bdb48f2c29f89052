// Build step (after tsc): writes dist/tool-schemas.json, the JSON Schemas tools/list shows, so the
// server serves them instead of converting every tool's zod schema at start (see src/tool-schemas.ts).
import { renameSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { toolSchemas } from '@mcp-workbench/core';
import { allTools } from '../dist/tools/index.js';
import { TOOL_SCHEMAS_FILE } from '../dist/tool-schemas.js';

const file = fileURLToPath(new URL(`../dist/${TOOL_SCHEMAS_FILE}`, import.meta.url));
writeFileSync(`${file}.tmp`, `${JSON.stringify(toolSchemas(allTools()))}\n`);
renameSync(`${file}.tmp`, file);
