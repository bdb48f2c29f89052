import type { ToolContext } from '@mcp-workbench/core';
import { ProjectPaths, ProjectState } from '../project/state.js';
import { SearchEngine } from '../search/search-content.js';
import { SnapshotStore } from '../paging/snapshots.js';
import type { FileRow } from '../files/list-files.js';

/** State one server instance shares between its tools (no globals: two servers never mix). */
export interface ToolDeps {
  project: ProjectState;
  search: SearchEngine;
  /** list_files results kept for cursor continuation (rows with their real paths, for a late stat). */
  listings: SnapshotStore<{ files: FileRow[]; realPaths: string[]; limitHit: boolean }>;
}

export function createToolDeps(): ToolDeps {
  return { project: new ProjectState(), search: new SearchEngine(), listings: new SnapshotStore() };
}

export function pathsOf(ctx: ToolContext, deps: ToolDeps): ProjectPaths {
  return new ProjectPaths(ctx.paths, deps.project);
}

/** An existing file named by a tool argument: its real path (to read) and the path answers show. */
export async function sourceFile(
  ctx: ToolContext,
  deps: ToolDeps,
  filePath: string,
): Promise<{ real: string; shown: string }> {
  const paths = pathsOf(ctx, deps);
  const real = await paths.resolve(filePath, { mustExist: true, kind: 'file' });
  return { real, shown: paths.display(real) };
}
