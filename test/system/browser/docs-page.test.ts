import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { chromium, type Browser, type Locator, type Page } from 'playwright-core';
import { startBuiltService, type RunningService } from '../../support/process/service-process';
import { CHROMIUM_ARGS, CHROMIUM_PATH, FIRST_SCREEN, openReferencePage } from '../../support/reference-page';

/**
 * The reference page in a real headless Chromium (Debian's; never a
 * downloaded one), against the production build.
 */
const SCREENSHOTS = path.resolve(__dirname, '../../../test-output/screenshots');

let service: RunningService;
let browser: Browser;
let page: Page;
const requested: string[] = [];

beforeAll(async () => {
  service = await startBuiltService();
  browser = await chromium.launch({ executablePath: CHROMIUM_PATH, args: CHROMIUM_ARGS });
  page = await browser.newPage({ viewport: FIRST_SCREEN });
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

/** Opens an operation's block, unless an earlier test left it open (a click on its summary toggles it). */
async function expand(operation: Locator): Promise<void> {
  if (!(await operation.locator('.opblock-body').isVisible())) await operation.locator('.opblock-summary').click();
  await operation.locator('.opblock-body').waitFor();
}

describe('GET /docs in headless Chromium', () => {
  it('lists every operation of the document, loading nothing from another host', async () => {
    await openReferencePage(page, service.baseUrl);
    // Operations first: one is on the first screen, above the folded tables (it was 3,485 px down).
    const first = await page.locator('.opblock').first().boundingBox();
    expect(first?.y).toBeLessThan(FIRST_SCREEN.height - 50);
    await expect(page.locator('.info details').count()).resolves.toBeGreaterThanOrEqual(4);

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

  it('shows each operation a request sample, in curl and in the typed client', async () => {
    const operation = page.locator('#operations-Customers-createCustomer');
    await expand(operation);
    const description = operation.locator('.opblock-description-wrapper').first();
    await expect(description.textContent()).resolves.toContain('curl -X POST "$BASE/v1/customers"');
    await expect(description.textContent()).resolves.toContain("client.POST('/v1/customers'");
  }, 60_000);

  it('lets a reader paste a bearer token and try three operations as they open, each answered with success', async () => {
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

    // Nothing typed: the values the page fills in (the location header's, the bodies' examples) are ones that work.
    for (const [id, status] of [
      ['Customers-createCustomer', '200'],
      ['Customers-listCustomers', '200'],
      ['Payment_intents-createPaymentIntent', '201'],
    ] as const) {
      const operation = page.locator(`#operations-${id}`);
      await expand(operation);
      await operation.locator('button.try-out__btn').click();
      await operation.locator('button.execute').click();
      const answered = operation.locator('.live-responses-table tr.response .response-col_status').first();
      await expect({ id, status: (await answered.textContent({ timeout: 30_000 }))?.trim() }).toEqual({ id, status });
    }

    // A second create with another body: no Idempotency-Key is pre-filled, so it is not refused as a reused key (422).
    const create = page.locator('#operations-Customers-createCustomer');
    await expect(create.locator('tr[data-param-name="Idempotency-Key"] input').inputValue()).resolves.toBe('');
    await create.locator('textarea.body-param__text').fill('{"externalReferenceId":"again-from-the-docs-page"}');
    await create.locator('button.execute').click();
    await create.locator('.live-responses-table .microlight', { hasText: 'again-from-the-docs-page' }).first().waitFor({ timeout: 30_000 });

    await page.screenshot({ path: path.join(SCREENSHOTS, 'docs-page-try-it.png'), fullPage: true });
  }, 90_000);
});
