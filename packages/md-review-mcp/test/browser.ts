import { existsSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Browser } from 'playwright-core';

/** Debian's chromium; MD_REVIEW_CHROMIUM names another build. */
export const CHROMIUM = process.env.MD_REVIEW_CHROMIUM ?? '/usr/bin/chromium';

/** Set by .ci/run: there a missing browser is a failure, not a skip. */
export const BROWSER_REQUIRED = process.env.MD_REVIEW_E2E_REQUIRED === '1';

export const hasChromium = existsSync(CHROMIUM);

/** Where screenshots go: a test artifact, outside git (.reports/ is ignored). */
export const SCREENSHOTS = fileURLToPath(new URL('../.reports/screenshots/', import.meta.url));

export function whyNoBrowser(): string | undefined {
  if (hasChromium) return undefined;
  const reason = `no Chromium at ${CHROMIUM} (apt-get install -y chromium, or set MD_REVIEW_CHROMIUM)`;
  if (BROWSER_REQUIRED) throw new Error(`MD_REVIEW_E2E_REQUIRED=1 but ${reason}`);
  return reason;
}

export async function launchChromium(extraArgs: string[] = []): Promise<Browser> {
  const { chromium } = await import('playwright-core');
  await mkdir(SCREENSHOTS, { recursive: true });
  return chromium.launch({
    executablePath: CHROMIUM,
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      ...extraArgs,
    ],
  });
}

export const shot = (name: string) => path.join(SCREENSHOTS, `${name}.png`);
