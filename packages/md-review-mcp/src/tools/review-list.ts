import { z } from 'zod';
import { defineTool } from '@mcp-workbench/core';
import type { ReviewRuntime } from './runtime.js';
import { SummarySchema } from './schemas.js';

export function reviewListTool(runtime: ReviewRuntime) {
  return defineTool({
    name: 'review.list',
    title: 'List review sessions',
    description:
      'Lists the review sessions kept on this machine, newest first: resume_key, title, status (open = the person ' +
      'may still comment; finalized; cancelled), comment counts, files, and the page url for sessions this server ' +
      'is serving. Use it to find a review you lost track of, then call review.request with its resume_key and the ' +
      'same root and files to wait for it (or to get a finished result).',
    annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
    input: {
      status: z.enum(['open', 'finalized', 'cancelled']).optional().describe('Only sessions in this state.'),
      limit: z
        .number()
        .int()
        .min(1)
        .max(200)
        .default(20)
        .describe('At most this many sessions (default 20).'),
    },
    output: {
      sessions: z.array(
        z.object({
          resume_key: z.string(),
          title: z.string(),
          status: z.enum(['open', 'finalized', 'cancelled']),
          root: z.string(),
          files: z.array(z.string()),
          summary: SummarySchema,
          startedAt: z.string(),
          updatedAt: z.string(),
          finalizedAt: z.string().optional(),
          waiting: z.boolean().describe('A review.request call is waiting for this session right now.'),
          url: z
            .string()
            .optional()
            .describe("The review page (without the person's key), when this server serves it."),
        }),
      ),
      total: z.number().int().describe('Sessions matching status before the limit.'),
    },
    async run(args) {
      const all = (await runtime.hub.list()).filter((s) => !args.status || s.status === args.status);
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
