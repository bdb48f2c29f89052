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
}
