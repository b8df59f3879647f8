// What the headless-Chromium suites share (test/e2e/hosted-page, dashboard, dashboard-reviewer, dashboard-webhooks):
// Debian's Chromium, launched the same way, a screenshots directory, and axe-core run in the page.
import fs from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { chromium, type Browser, type Page } from 'playwright-core';
import sharp from 'sharp';

/** Debian's Chromium (.ci/run installs it); without it the browser suites are skipped, visibly. */
export const CHROMIUM = ['/usr/bin/chromium', '/usr/bin/chromium-browser'].find((p) => fs.existsSync(p));

const ROOT = path.resolve(import.meta.dirname, '../..');

/** Headless Chromium with nothing that would reach the network on its own. */
export function launchChromium(): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'],
  });
}

/**
 * Where a suite writes its screenshots: `docs/<docsDir>` with UPDATE_SCREENSHOTS=1 (the ones the docs show), else a
 * temporary directory; `cleanup` removes the temporary one.
 */
export function screenshotsDir(docsDir: string, prefix: string): { dir: string; cleanup(): void } {
  const update = process.env.UPDATE_SCREENSHOTS === '1';
  const dir = update ? path.join(ROOT, 'docs', docsDir) : fs.mkdtempSync(path.join(os.tmpdir(), `${prefix}-`));
  return { dir, cleanup: () => (update ? undefined : fs.rmSync(dir, { recursive: true, force: true })) };
}

/** A screenshot of `page` written to `file` as a palette PNG (about a third of the size, the same to read: docs/ keeps them small). */
export async function screenshot(page: Page, file: string, fullPage = false): Promise<void> {
  const png = await page.screenshot({ fullPage });
  fs.writeFileSync(file, await sharp(png).png({ palette: true, colours: 128, compressionLevel: 9, effort: 10 }).toBuffer());
}

const require = createRequire(import.meta.url);
const AXE = fs.readFileSync(require.resolve('axe-core/axe.min.js'), 'utf8');

export interface AxeViolation {
  id: string;
  impact: string | null;
  help: string;
  nodes: Array<{ target: unknown }>;
}

/**
 * Runs axe-core in the page and answers its serious and critical violations. The pages' CSP allows no inline script
 * (page.addScriptTag with content is refused, as any injected script should be), so axe is evaluated through the
 * DevTools protocol, which CSP does not govern.
 */
export async function axe(page: Page): Promise<AxeViolation[]> {
  await page.evaluate(AXE);
  const violations = await page.evaluate(async () => {
    const w = window as unknown as { axe: { run: (ctx: Document, opts: object) => Promise<{ violations: AxeViolation[] }> } };
    const r = await w.axe.run(document, { resultTypes: ['violations'], runOnly: { type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'best-practice'] } });
    return r.violations.map((v) => ({ id: v.id, impact: v.impact, help: v.help, nodes: v.nodes.map((n) => ({ target: n.target })) }));
  });
  return violations.filter((v) => v.impact === 'serious' || v.impact === 'critical');
}
