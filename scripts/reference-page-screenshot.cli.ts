// `npm run docs:screenshot`: the reference page's first screen, as an
// integrator opening /docs meets it, into docs/reference-page.png (committed;
// README links it). Debian's Chromium (apt-get install chromium), never a
// downloaded browser; the service from the sources on an embedded database.
import path from 'node:path';
import { chromium } from 'playwright-core';
import { startSourceService } from '../test/support/process/service-process';
import { CHROMIUM_ARGS, CHROMIUM_PATH, FIRST_SCREEN, openReferencePage } from '../test/support/reference-page';

const OUT = path.resolve(__dirname, '../docs/reference-page.png');

async function main(): Promise<void> {
  const service = await startSourceService();
  const browser = await chromium.launch({ executablePath: CHROMIUM_PATH, args: CHROMIUM_ARGS });
  try {
    const page = await browser.newPage({ viewport: FIRST_SCREEN });
    await openReferencePage(page, service.baseUrl);
    await page.screenshot({ path: OUT });
    console.log(`wrote ${path.relative(process.cwd(), OUT)} (${FIRST_SCREEN.width}×${FIRST_SCREEN.height})`);
  } finally {
    await browser.close();
    await service.stop();
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
