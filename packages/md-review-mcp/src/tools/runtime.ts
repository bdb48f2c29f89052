import type { Logger } from '@mcp-workbench/core';
import type { ReviewHub } from '../review/hub.js';
import type { Launcher } from '../launch/launcher.js';
import type { ReviewServer } from '../web/review-server.js';

/** What the tools of one server instance share: no globals, so two servers never mix. */
export interface ReviewRuntime {
  hub: ReviewHub;
  web: ReviewServer;
  launcher: Launcher;
  logger: Logger;
  /** 'auto' opens the app or browser; 'none' (--no-open) only prints the URL. */
  openMode: 'auto' | 'none';
  /** Default of `wait_seconds` (0 = no limit). */
  waitSeconds: number;
  /** Between two progress notifications while waiting. */
  progressIntervalMs: number;
  /** A line for the person at the terminal (stderr), whatever the log level. */
  announce: (line: string) => void;
  /** Sessions whose launch failed in this process: they are not launched again, only waited for. */
  launchFailed: Set<string>;
  /**
   * Asks the client to show a URL to its user, not to the model (MCP URL-mode elicitation); false when
   * the client cannot.
   */
  offerUrl: (url: string, message: string) => boolean;
  /** Aborted when the client is gone (stdin closed): waiting calls answer pending, so the process can end. */
  clientGone: AbortSignal;
  /** Sessions whose link the client was asked to show in this process. */
  linkOffered: Set<string>;
}
