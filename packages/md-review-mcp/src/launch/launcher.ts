import type { Logger } from '@mcp-workbench/core/engine';
import { findDesktopApp } from './desktop-app.js';
import { launchDetached, settleLaunch } from './spawn-check.js';

export interface LaunchOutcome {
  via: 'app' | 'browser';
  detail: string;
}

/** Shows a review URL to the person. Throws (with the reasons) when nothing could be opened. */
export interface Launcher {
  open(url: string): Promise<LaunchOutcome>;
}

export class LaunchFailure extends Error {
  override name = 'LaunchFailure';
}

/**
 * The desktop app when there is one (see findDesktopApp), else the default browser (the `open`
 * package: xdg-open, `open`, `start`, WSL). An app named by MD_REVIEW_APP is the person's explicit
 * choice, so it gets no silent fallback; a found app that fails falls back to the browser.
 */
export function systemLauncher(logger: Logger, env: NodeJS.ProcessEnv = process.env): Launcher {
  return {
    async open(url) {
      const reasons: string[] = [];
      const app = await findDesktopApp(env);
      if (app) {
        try {
          await launchDetached(app.command, [...app.args, url]);
          return { via: 'app', detail: `${app.command} (${app.source})` };
        } catch (error) {
          reasons.push(`${app.source} app ${app.command}: ${(error as Error).message}`);
          if (app.source === 'MD_REVIEW_APP') throw new LaunchFailure(reasons.join('; '));
          logger.warn(`The desktop app did not start (${reasons[0]}); trying the browser.`);
        }
      }
      try {
        // Loaded here, not at start: `open` and its dependencies are 14 modules that a server whose
        // reviews open in the desktop app (or with --no-open) never needs.
        const { default: open } = await import('open');
        await settleLaunch(await open(url));
        return { via: 'browser', detail: 'default browser' };
      } catch (error) {
        reasons.push(`default browser: ${(error as Error).message}`);
        throw new LaunchFailure(reasons.join('; '));
      }
    },
  };
}
