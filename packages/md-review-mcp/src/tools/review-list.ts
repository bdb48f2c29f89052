import { z } from 'zod';
import { defineTool, type PathPolicy } from '@mcp-workbench/core';
import type { SessionListing } from '../review/hub.js';
import type { ReviewRuntime } from './runtime.js';
import { SummarySchema } from './schemas.js';

export function reviewListTool(runtime: ReviewRuntime) {
  return defineTool({
    name: 'review_list',
    title: 'List review sessions',
    description:
      "Review sessions under this server's roots, newest first: resume_key, title, status, counts, files. To " +
      'wait for one or get its result, call review_request with its resume_key, root and files.',
    annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
    input: {
      status: z.enum(['open', 'finalized', 'cancelled']).optional(),
      limit: z.number().int().min(1).max(200).default(20),
    },
    output: {
      sessions: z.array(
        z.object({
          resume_key: z.string(),
          title: z.string(),
          status: z.enum(['open', 'finalized', 'cancelled']),
          root: z.string(),
          working_path: z.string(),
          files: z.array(z.string()).describe('As review_request takes them: relative to root.'),
          summary: SummarySchema,
          startedAt: z.string(),
          updatedAt: z.string(),
          finalizedAt: z.string().optional(),
          waiting: z.boolean().describe('A review_request call is waiting for this session right now.'),
          url: z
            .string()
            .optional()
            .describe("The review page (without the person's key), when this server serves it."),
        }),
      ),
      total: z.number().int().describe('Sessions matching status before the limit.'),
    },
    async run(args, ctx) {
      const all: SessionListing[] = [];
      // Many sessions share a root: each root is checked once per call.
      const rootChecks = new Map<string, Promise<boolean>>();
      for (const session of await runtime.hub.list()) {
        if (args.status && session.status !== args.status) continue;
        let allowed = rootChecks.get(session.root);
        if (!allowed) rootChecks.set(session.root, (allowed = underRoots(ctx.paths, session.root)));
        // Other projects' reviews stay private: only sessions under this server's roots are listed.
        if (await allowed) all.push(session);
      }
      const sessions = [];
      for (const { live, ...session } of all.slice(0, args.limit)) {
        sessions.push(
          live && runtime.web.port !== undefined
            ? { ...session, url: await runtime.web.pageUrl(session.resume_key) }
            : session,
        );
      }
      return { sessions, total: all.length };
    },
  });
}

async function underRoots(paths: PathPolicy, root: string): Promise<boolean> {
  try {
    await paths.resolve(root, { mustExist: false });
    return true;
  } catch {
    return false;
  }
}
