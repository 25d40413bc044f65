/**
 * Headless Chromium (Debian's /usr/bin/chromium, driven by playwright-core, which never downloads
 * a browser) for the report tests. Each launch gets a fresh profile directory, no network
 * services (sync, component updates, background networking) and no sandbox (tests run as root).
 *
 * When Chromium is missing or will not start: under CI (CI=true) that is a failure with a clear
 * message — `.ci/run` installs it — and locally the test is skipped with the same message.
 */
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TestContext } from 'node:test';
import { chromium, type BrowserContext } from 'playwright-core';

export const CHROMIUM_PATH = '/usr/bin/chromium';

const ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

/** A running browser and how to close it (also removes its profile). */
export interface Browser {
  context: BrowserContext;
  close(): Promise<void>;
}

/**
 * Launches Chromium, or returns null after skipping the test (locally) when it cannot.
 * @throws Error under CI when Chromium is missing or fails to start.
 */
export async function launchChromium(
  t: TestContext,
  options: { colorScheme?: 'light' | 'dark' } = {},
): Promise<Browser | null> {
  let problem: string | null = null;
  if (!existsSync(CHROMIUM_PATH))
    problem = `${CHROMIUM_PATH} not found (install it: apt-get update && apt-get install -y chromium)`;
  if (problem === null) {
    const profile = mkdtempSync(join(tmpdir(), 'servebench-chromium-'));
    try {
      const context = await chromium.launchPersistentContext(profile, {
        executablePath: CHROMIUM_PATH,
        headless: true,
        args: ARGS,
        viewport: { width: 1400, height: 900 },
        colorScheme: options.colorScheme ?? 'light',
        timeout: 60_000,
      });
      return {
        context,
        close: async () => {
          await context.close();
          rmSync(profile, { recursive: true, force: true });
        },
      };
    } catch (err) {
      rmSync(profile, { recursive: true, force: true });
      problem = `Chromium at ${CHROMIUM_PATH} did not start: ${(err instanceof Error ? err.message : String(err)).split('\n')[0]}`;
    }
  }
  if (process.env['CI'] === 'true') throw new Error(`browser test cannot run under CI: ${problem}`);
  t.skip(`browser test skipped locally: ${problem}`);
  return null;
}
