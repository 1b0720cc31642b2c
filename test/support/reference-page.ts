import type { Page } from 'playwright-core';

/** Debian's Chromium (never a downloaded one), headless, reaching nothing but the page's host. */
export const CHROMIUM_PATH = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
export const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--no-first-run',
  '--disable-sync',
];

/** A laptop's first screen: what the reference page must show an operation within (issue 54). */
export const FIRST_SCREEN = { width: 1400, height: 1000 } as const;

/** Opens /docs and waits until Swagger UI has drawn the operations. */
export async function openReferencePage(page: Page, baseUrl: string): Promise<void> {
  await page.goto(`${baseUrl}/docs`);
  await page.locator('.opblock').first().waitFor({ timeout: 30_000 });
}
