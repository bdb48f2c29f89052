import type { AnyTool } from '@mcp-workbench/core';

export function allTools(): AnyTool[] {
  return [];
}
