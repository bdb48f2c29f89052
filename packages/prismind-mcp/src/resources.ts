import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import {
  ListResourcesRequestSchema,
  ListResourceTemplatesRequestSchema,
  McpError,
  ReadResourceRequestSchema,
  type Resource,
} from '@modelcontextprotocol/sdk/types.js';
import { toToolError } from '@mcp-workbench/core/engine';
import { getDocument } from './engine/documents.js';
import type { Engine } from './engine/engine.js';
import { catalogView, progressView, summaryPhaseTask, summaryView } from './model/views.js';

const PAGE = 500;
const RESOURCE_NOT_FOUND = -32002;
const VIEWS = { summary: 'サマリ', progress: '進捗', catalog: '目録' } as const;
type View = keyof typeof VIEWS;

export const documentUri = (docId: string) => `prismind://documents/${encodeURIComponent(docId)}`;
export const viewUri = (project: string, view: View) =>
  `prismind://projects/${encodeURIComponent(project)}/${view}`;

/**
 * Documents (and each project's summary, progress and catalog views) as MCP resources, so clients that
 * show resources can attach them: `prismind://documents/<doc_id>`, `prismind://projects/<id>/summary|progress|catalog`.
 */
export function registerResources(mcp: McpServer, engine: () => Promise<Engine>): void {
  const server = mcp.server;
  server.registerCapabilities({ resources: { listChanged: false } });

  server.setRequestHandler(ListResourceTemplatesRequestSchema, () => ({
    resourceTemplates: [
      {
        uriTemplate: 'prismind://documents/{doc_id}',
        name: 'document',
        title: 'Prismind document',
        mimeType: 'text/markdown',
      },
      {
        uriTemplate: 'prismind://projects/{project}/{view}',
        name: 'project-view',
        title: 'Project summary, progress or catalog (view: summary | progress | catalog)',
        mimeType: 'text/markdown',
      },
    ],
  }));

  server.setRequestHandler(ListResourcesRequestSchema, async (request) => {
    const e = await engine();
    const all = await e.backend.read(async (stores) => {
      const list: Resource[] = [];
      for (const project of await stores.projects.list()) {
        for (const view of Object.keys(VIEWS) as View[]) {
          list.push({
            uri: viewUri(project.project_id, view),
            name: `${project.name} — ${VIEWS[view]}`,
            mimeType: 'text/markdown',
          });
        }
        for (const entry of await stores.catalog.list({ project: project.project_id, status: 'active' })) {
          list.push({
            uri: documentUri(entry.doc_id),
            name: entry.name,
            title: `${entry.name} (${project.name} / ${entry.doc_type})`,
            description: `${entry.doc_type} ${entry.phase_task}${entry.feature ? ` ${entry.feature}` : ''}`,
            mimeType: 'text/markdown',
          });
        }
      }
      return list;
    });
    const offset = Number.parseInt(request.params?.cursor ?? '0', 10) || 0;
    const page = all.slice(offset, offset + PAGE);
    return { resources: page, ...(offset + PAGE < all.length ? { nextCursor: String(offset + PAGE) } : {}) };
  });

  server.setRequestHandler(ReadResourceRequestSchema, async (request) => {
    const uri = request.params.uri;
    const e = await engine();
    const doc = /^prismind:\/\/documents\/([^/]+)$/.exec(uri);
    try {
      if (doc) {
        const found = await getDocument(e, { doc_id: decodeURIComponent(doc[1]!) });
        return { contents: [{ uri, mimeType: 'text/markdown', text: found.document!.content }] };
      }
      const view = /^prismind:\/\/projects\/([^/]+)\/(summary|progress|catalog)$/.exec(uri);
      if (view) {
        const text = await e.backend.read(async (stores) => {
          const project = await stores.projects.get(decodeURIComponent(view[1]!));
          if (!project) return undefined;
          const tasks = await stores.tracker.list(project.project_id);
          if (view[2] === 'progress') return progressView(project, tasks);
          if (view[2] === 'catalog')
            return catalogView(
              project,
              await stores.catalog.list({ project: project.project_id, status: 'all' }),
            );
          const current = summaryPhaseTask(tasks);
          const related = current
            ? await stores.catalog.list({ project: project.project_id, phase_task: current })
            : [];
          return summaryView(project, tasks, await stores.sessions.latest(project.project_id), related);
        });
        if (text !== undefined) return { contents: [{ uri, mimeType: 'text/markdown', text }] };
      }
    } catch (error) {
      const failure = toToolError(error);
      if (failure.code !== 'NOT_FOUND') throw new McpError(-32603, failure.message);
    }
    throw new McpError(RESOURCE_NOT_FOUND, `Resource not found: ${uri}`, { uri });
  });
}
