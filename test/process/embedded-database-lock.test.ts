import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { copyTemplateFolder } from '../support/pglite-template';
import { devClientToken, startSourceService } from '../support/process/service-process';

/**
 * PGlite is one process's database: a second process on the same DATA_DIR
 * would keep its own copy and lose writes. It must refuse to start instead,
 * naming the folder and the process that holds it; a lock left by a killed
 * process is taken over.
 */
const LOCATION = { 'Platform-Restaurant-External-ID': 'lock-test' };

async function createCustomer(baseUrl: string, token: string): Promise<string> {
  const response = await fetch(`${baseUrl}/v1/customers`, {
    method: 'POST',
    headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json', ...LOCATION },
    body: JSON.stringify({ externalReferenceId: 'written-by-the-first-process' }),
  });
  expect(response.status).toBe(200);
  return ((await response.json()) as { id: string }).id;
}

describe('one process per embedded database', () => {
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'cpp-lock-'));
  const lockFile = path.join(dataDir, 'pglite', 'service.lock');
  afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

  it('refuses a second process on the same DATA_DIR, naming the folder and the holder, and takes over the lock of a killed one', async () => {
    // A migrated database in the folder already: what is tested is the lock, not a first start (README's commands test that).
    await copyTemplateFolder(path.join(dataDir, 'pglite'));
    const first = await startSourceService({ DATA_DIR: dataDir });
    try {
      const customerId = await createCustomer(first.baseUrl, await devClientToken(first.baseUrl));
      expect(existsSync(lockFile)).toBe(true);

      const second = startSourceService({ DATA_DIR: dataDir });
      await expect(second).rejects.toThrow(`The embedded database in ${path.join(dataDir, 'pglite')} is in use by process ${first.pid}`);

      // kill -9 leaves the lock file behind; the next process finds its holder gone.
      first.signal('SIGKILL');
      await first.exited;
      expect(existsSync(lockFile)).toBe(true);
      const third = await startSourceService({ DATA_DIR: dataDir });
      const token = await devClientToken(third.baseUrl);
      const read = await fetch(`${third.baseUrl}/v1/customers/${customerId}`, { headers: { Authorization: `Bearer ${token}`, ...LOCATION } });
      expect(read.status).toBe(200);
      expect(await third.stop()).toBe(0);
      expect(existsSync(lockFile)).toBe(false);
    } finally {
      await first.stop();
    }
  }, 120_000);
});
