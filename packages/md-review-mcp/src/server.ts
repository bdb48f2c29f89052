import { randomUUID } from 'node:crypto';
import { createToolServer, silentLogger, type Logger, type PathPolicy } from '@mcp-workbench/core';
import { systemLauncher, type Launcher } from './launch/launcher.js';
import { defaultHome } from './review/home.js';
import { ReviewHub, type ReadFileBytes } from './review/hub.js';
import { LIMITS } from './review/limits.js';
import { SessionOwnership } from './review/ownership.js';
import { SessionStore } from './review/store.js';
import { reviewListTool } from './tools/review-list.js';
import { reviewRequestTool } from './tools/review-request.js';
import type { ReviewRuntime } from './tools/runtime.js';
import { sessionNewIdTool } from './tools/session-new-id.js';
import { PACKAGE_NAME, PACKAGE_VERSION } from './version.js';
import { askToRelease } from './web/handover.js';
import { ReviewServer } from './web/review-server.js';

export const DEFAULT_WAIT_SECONDS = 50;

export interface MdReviewServerOptions {
  paths: PathPolicy;
  logger?: Logger;
  /** Where sessions are kept (default: $MD_REVIEW_HOME or the OS's per-user data folder). */
  home?: string;
  /** 'none' only prints the URL (--no-open). */
  openMode?: 'auto' | 'none';
  /** Default wait before a pending answer, in seconds (0 = no limit). */
  waitSeconds?: number;
  progressIntervalMs?: number;
  /** How pages are shown (default: desktop app, else browser). */
  launcher?: Launcher;
  /** A line for the person at the terminal (default: the log at info level). */
  announce?: (line: string) => void;
  /** Where the built page is (default: this package's dist/ui). */
  uiDir?: string;
  /**
   * Aborted when the client is gone (the bin: stdin closed). Calls waiting for the person answer
   * "pending" at once, so the server ends as it does at any other time; the session stays saved.
   */
  clientGone?: AbortSignal;
  /** How long a finished, delivered review's page may be quiet before the session is let go (default 30 s). */
  releaseIdleMs?: number;
}

const INSTRUCTIONS =
  'Ask a person to review Markdown: call session_new_id, then review_request with that id as resume_key. ' +
  'review_request blocks until the person finalizes (or answers status "pending" after wait_seconds: call it again ' +
  'with the same arguments). review_list finds sessions you lost track of.';

/** Reads a reviewed file through the path policy at every read (roots may change; nothing is followed out). */
function policyReader(paths: PathPolicy): ReadFileBytes {
  return (file) => paths.readFile(file, { maxBytes: LIMITS.maxFileBytes });
}

/** One server instance: its own sessions in memory, its own review web server (started on first use). */
export function createServer(options: MdReviewServerOptions) {
  const logger = options.logger ?? silentLogger;
  const store = new SessionStore(options.home ?? defaultHome(process.env));
  const ownership: SessionOwnership = new SessionOwnership(store, {
    port: (): Promise<number> => web.start(),
    askRelease: askToRelease,
  });
  const hub = new ReviewHub(
    store,
    policyReader(options.paths),
    ownership,
    options.releaseIdleMs === undefined ? {} : { releaseIdleMs: options.releaseIdleMs },
  );
  const web = new ReviewServer({ hub, logger, ...(options.uiDir ? { uiDir: options.uiDir } : {}) });
  const runtime: ReviewRuntime = {
    hub,
    web,
    launcher: options.launcher ?? systemLauncher(logger),
    logger,
    openMode: options.openMode ?? 'auto',
    waitSeconds: options.waitSeconds ?? DEFAULT_WAIT_SECONDS,
    progressIntervalMs: options.progressIntervalMs ?? 10_000,
    announce: options.announce ?? ((line) => logger.info(line)),
    launchFailed: new Set(),
    clientGone: options.clientGone ?? new AbortController().signal,
    linkOffered: new Set(),
    offerUrl: () => false, // set below, once the MCP server exists
  };
  const mcp = createToolServer(
    {
      name: PACKAGE_NAME,
      version: PACKAGE_VERSION,
      title: 'Markdown review by a person',
      instructions: INSTRUCTIONS,
    },
    [sessionNewIdTool, reviewRequestTool(runtime), reviewListTool(runtime)],
    { paths: options.paths, logger },
  );
  runtime.offerUrl = (url, message) => {
    if (!mcp.server.getClientCapabilities()?.elicitation?.url) return false;
    // The person may answer later or never: the review does not wait for it.
    mcp.server
      .elicitInput({ mode: 'url', url, message, elicitationId: randomUUID() }, { timeout: 24 * 3600_000 })
      .catch((error: unknown) => logger.debug('The client did not show the review link', error));
    return true;
  };
  // The page server starts (and reads the page's files) as soon as a client is connected, so the first
  // review_request of a fresh process waits for neither.
  const initialized = mcp.server.oninitialized;
  mcp.server.oninitialized = () => {
    initialized?.();
    web.start().catch((error: unknown) => logger.warn('The review page server did not start', error));
  };
  // The review pages live as long as the MCP server.
  const previous = mcp.server.onclose;
  mcp.server.onclose = () => {
    previous?.();
    hub.close(); // lets the sessions' locks go at once (synchronously: the process may be exiting)
    void web.close();
  };
  return mcp;
}
