import { z } from 'zod';
import { defineTool, ToolError } from '@mcp-workbench/core';
import { LIMITS } from '../review/limits.js';
import { resolveRequestPaths } from '../review/request-paths.js';
import { checkResumeKey } from '../review/store.js';
import type { ReviewResult, ReviewSummary } from '../review/types.js';
import type { ReviewRuntime } from './runtime.js';
import { ReviewAnswerShape } from './schemas.js';

/** A page that asked for its session this recently is still open: no second window for it. */
const PAGE_ALIVE_MS = 15_000;

const counts = (summary: ReviewSummary) => {
  const n = summary.comment_count;
  const said = `${n} comment${n === 1 ? '' : 's'} so far`;
  const earlier = summary.earlier_comment_count;
  // From round 2 on, the kept comments are named apart: they do not make this round's verdict.
  return earlier === undefined ? said : `${said} this round, besides ${earlier} kept from earlier rounds`;
};

export function reviewRequestTool(runtime: ReviewRuntime) {
  return defineTool({
    name: 'review_request',
    title: 'Ask a person to review Markdown',
    description:
      'A person reviews Markdown files in a page; the call waits for them. ' +
      'Answer: JSON — round, verdict (approved = no comments this round | commented | cancelled), ' +
      'inline_comments (file, range 1-based inclusive, severity must|should|suggestion|question, comment; ' +
      'stale: its lines were edited since), global_comments, summary, meta, warnings (files edited after the ' +
      'person saw them). Fix every "must" first. Not done after wait_seconds: status "pending" — call again ' +
      'with the same arguments. After a finished review, the same resume_key opens another round once you ' +
      'edited the files (earlier comments kept), else repeats the result.',
    annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: true },
    input: {
      resume_key: z.string().min(1).max(128).describe('From session_new_id; the same key resumes.'),
      title: z.string().min(1).max(LIMITS.maxTitleChars),
      root: z.string().min(1).describe('Absolute directory.'),
      files: z
        .array(z.string())
        .min(1)
        .max(LIMITS.maxFiles)
        .describe('Markdown files, relative to root (not working_path) or absolute inside it.'),
      working_path: z
        .string()
        .min(1)
        .describe('Your current directory (absolute); answer paths are relative to it.'),
      instructions: z
        .string()
        .max(LIMITS.maxInstructionsChars)
        .optional()
        .describe('What to check (default: a generic checklist).'),
      wait_seconds: z
        .number()
        .int()
        .min(0)
        .max(86_400)
        .optional()
        .describe(`Before answering pending (default ${runtime.waitSeconds}; 0 = no limit).`),
      // A plain number (bounds cost tokens in every tool list): one that is not the latest round only repeats it.
      after_round: z.number().optional().describe('Open round N+1 without edits; a retry gets it.'),
    },
    output: ReviewAnswerShape,
    async run(args, ctx) {
      checkResumeKey(args.resume_key);
      // Unreadable files are tolerated only to deliver a review the person already finished (audit defect 7).
      const paths = await resolveRequestPaths(ctx.paths, args, { allowUnreadable: true });
      const { hub, web } = runtime;
      const prepared = await hub.prepare(
        {
          resume_key: args.resume_key,
          title: args.title,
          root: paths.root,
          working_path: paths.workingPath,
          files: paths.files,
          ...(args.instructions === undefined ? {} : { instructions: args.instructions }),
          ...(args.after_round === undefined ? {} : { afterRound: args.after_round }),
        },
        paths.unreadable.length === 0 ? undefined : () => paths.unreadable[0]!,
      );
      if (prepared.kind === 'done') return prepared.result;

      // The person's link carries the session's secret and goes only where the person looks; the agent
      // gets the page's address without it (issue 24: the agent must not be able to act for the person).
      const url = await web.pageUrl(args.resume_key);
      const personalUrl = await web.personalUrl(args.resume_key);
      runtime.announce(`md-review: "${args.title}" is waiting for review at ${personalUrl}`);
      await showPage(runtime, args.resume_key, args.title, personalUrl, url);

      const waitSeconds = args.wait_seconds ?? runtime.waitSeconds;
      const outcome = await hub.wait(args.resume_key, {
        signal: ctx.signal,
        stop: runtime.clientGone,
        timeoutMs: waitSeconds * 1000,
        tickMs: runtime.progressIntervalMs,
        onTick: (elapsed) => {
          const message = `waiting for review: ${counts(hub.summary(args.resume_key))} — ${url}`;
          ctx
            .progress(Math.round(elapsed / 1000), undefined, message)
            .catch((error: unknown) => ctx.logger.debug('progress not sent', error));
        },
      });
      if (outcome.kind === 'done') return outcome.result satisfies ReviewResult;
      if (outcome.kind === 'taken-over') {
        throw new ToolError(
          'CONFLICT',
          'Taken over: another review_request call with this resume_key is now waiting for the review.',
          {
            hint: 'Use the answer of the newer call; the review itself is unaffected.',
          },
        );
      }
      const summary = hub.summary(args.resume_key);
      const previous = hub.previousRound(args.resume_key);
      return {
        status: 'pending' as const,
        resume_key: args.resume_key,
        title: args.title,
        round: hub.round(args.resume_key),
        summary,
        ...(previous ? { previous_round: previous } : {}),
        url,
        waited_seconds: waitSeconds,
        message:
          `The person is still reviewing (${counts(summary)}). Call review_request again with the same arguments ` +
          `(resume_key "${args.resume_key}") to keep waiting. ${LINK_HELP}`,
      };
    },
  });
}

/** What the agent is told about where the person finds the link it cannot see. */
export const LINK_HELP =
  'The person opens the review from the window md-review opened, or from the link with its key that only they ' +
  "get: in your MCP client if it offered one, in this server's log (stderr), or printed by `npx md-review-mcp link` " +
  'in a terminal on this machine.';

/**
 * Shows the page unless --no-open, unless it is already open (it polls its session), and unless opening
 * already failed for this session in this process (the agent has the page's address; now it only waits).
 * When no window opens, a client that can show a URL to its user (URL-mode elicitation) gets the
 * person's link that way: the client shows it to the person, never to the model.
 */
async function showPage(
  runtime: ReviewRuntime,
  key: string,
  title: string,
  personalUrl: string,
  pageUrl: string,
): Promise<void> {
  if (runtime.hub.pageSeen(key, PAGE_ALIVE_MS)) return;
  if (runtime.openMode === 'none' || runtime.launchFailed.has(key)) {
    offerLink(runtime, key, title, personalUrl);
    return;
  }
  try {
    const opened = await runtime.launcher.open(personalUrl);
    runtime.logger.info(
      `Opened the review in the ${opened.via === 'app' ? 'desktop app' : 'browser'}: ${opened.detail}`,
    );
  } catch (error) {
    runtime.launchFailed.add(key);
    const reason = (error as Error).message;
    runtime.announce(`md-review: could not open the review (${reason}); open ${personalUrl} by hand`);
    // The client shows the person the link: the review goes on, the call waits.
    if (offerLink(runtime, key, title, personalUrl)) return;
    throw new ToolError(
      'BACKEND_UNAVAILABLE',
      `App launch failed: ${reason}. The review is open at ${pageUrl}`,
      {
        hint: `${LINK_HELP} Tell the user, then call review_request again with resume_key "${key}" to wait for the result.`,
        details: { url: pageUrl, resume_key: key },
      },
    );
  }
}

/** Asks the client to show the person's link (once per session and process); true when it was sent. */
function offerLink(runtime: ReviewRuntime, key: string, title: string, personalUrl: string): boolean {
  if (runtime.linkOffered.has(key)) return true;
  const sent = runtime.offerUrl(personalUrl, `Open the review "${title}": the agent is waiting for it.`);
  if (sent) runtime.linkOffered.add(key);
  return sent;
}
