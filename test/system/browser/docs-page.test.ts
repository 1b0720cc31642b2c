import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { chromium, type Browser, type Page } from 'playwright-core';
import { startBuiltService, type RunningService } from '../../support/process/service-process';

/**
 * The reference page in a real headless Chromium (Debian's; never a
 * downloaded one), against the production build.
 */
const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const SCREENSHOTS = path.resolve(__dirname, '../../../test-output/screenshots');

let service: RunningService;
let browser: Browser;
let page: Page;
const requested: string[] = [];

beforeAll(async () => {
  service = await startBuiltService();
  browser = await chromium.launch({
    executablePath: CHROMIUM,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--no-first-run', '--disable-sync'],
  });
  page = await browser.newPage();
  page.on('request', (request) => requested.push(request.url()));
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await service?.stop();
});

async function documentedOperations(): Promise<string[]> {
  const document = (await (await fetch(`${service.baseUrl}/openapi.json`)).json()) as {
    paths: Record<string, Record<string, unknown>>;
    webhooks: Record<string, Record<string, unknown>>;
  };
  // The page lists the webhooks' payloads too, each as its method and event type.
  return [...Object.entries(document.paths), ...Object.entries(document.webhooks)].flatMap(([route, item]) =>
    Object.keys(item).map((method) => `${method.toUpperCase()} ${route}`),
  );
}

describe('GET /docs in headless Chromium', () => {
  it('lists every operation of the document, loading nothing from another host', async () => {
    await page.goto(`${service.baseUrl}/docs`);
    await page.locator('.opblock').first().waitFor({ timeout: 30_000 });

    const listed = await page.locator('.opblock').evaluateAll((blocks) =>
      blocks.map((block) => {
        const method = block.querySelector('.opblock-summary-method')?.textContent?.trim() ?? '';
        const route = block.querySelector('.opblock-summary-path')?.getAttribute('data-path') ?? '';
        return `${method} ${route}`;
      }),
    );
    expect([...listed].sort()).toEqual((await documentedOperations()).sort());
    await expect(page.title()).resolves.toBe('Customer Payment Profiles API');

    const origin = new URL(service.baseUrl).origin;
    expect(requested.length).toBeGreaterThan(0);
    expect(requested.filter((url) => !url.startsWith(`${origin}/`) && !url.startsWith('data:'))).toEqual([]);

    mkdirSync(SCREENSHOTS, { recursive: true });
    await page.screenshot({ path: path.join(SCREENSHOTS, 'docs-page.png'), fullPage: true });
  }, 60_000);

  it('lets a reader paste a bearer token and try a call', async () => {
    const login = await fetch(`${service.baseUrl}/authentication/v1/authentication/login`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ clientId: 'local-dev-client', clientSecret: 'local-dev-secret' }),
    });
    const token = ((await login.json()) as { token: { accessToken: string } }).token.accessToken;

    await page.locator('button.authorize').first().click();
    const bearer = page.locator('.auth-container').filter({ hasText: 'BearerToken' });
    await bearer.locator('input').fill(token);
    await bearer.locator('button.authorize').click();
    await page.locator('button.close-modal').click();

    const operation = page.locator('#operations-Customers-createCustomer');
    await operation.locator('.opblock-summary').click();
    await operation.locator('button.try-out__btn').click();
    await operation.locator('tr[data-param-name="Platform-Restaurant-External-ID"] input').fill('docs-page-location');
    await operation.locator('textarea.body-param__text').fill('{"externalReferenceId":"from-the-docs-page"}');
    await operation.locator('button.execute').click();

    const status = operation.locator('.live-responses-table tr.response .response-col_status').first();
    await expect(status.textContent({ timeout: 30_000 })).resolves.toContain('200');
    await expect(operation.locator('.live-responses-table .microlight').first().textContent()).resolves.toContain('from-the-docs-page');

    // A second try with another body: no Idempotency-Key is pre-filled, so it is not refused as a reused key (422).
    await expect(operation.locator('tr[data-param-name="Idempotency-Key"] input').inputValue()).resolves.toBe('');
    await operation.locator('textarea.body-param__text').fill('{"externalReferenceId":"again-from-the-docs-page"}');
    await operation.locator('button.execute').click();
    await operation.locator('.live-responses-table .microlight', { hasText: 'again-from-the-docs-page' }).first().waitFor({ timeout: 30_000 });
    await expect(status.textContent()).resolves.toContain('200');

    await page.screenshot({ path: path.join(SCREENSHOTS, 'docs-page-try-it.png'), fullPage: true });
  }, 60_000);
});
