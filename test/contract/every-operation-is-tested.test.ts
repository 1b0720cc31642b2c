import { setTimeout as sleep } from 'node:timers/promises';
import { documentedOperations } from '../support/contract/openapi-contract';
import { readTestFileRecord, testFilesOfRun, type TestFileRecord } from '../support/contract/contract-run';

const WAIT_FOR_OTHER_FILES_MS = 10 * 60 * 1000;

/** The other test files' records; files still running in another worker are waited for. */
async function recordsOfOtherFiles(): Promise<{ records: TestFileRecord[]; missing: string[] }> {
  const others = testFilesOfRun().filter((file) => file !== expect.getState().testPath);
  const deadline = Date.now() + WAIT_FOR_OTHER_FILES_MS;
  for (;;) {
    const records = others.map(readTestFileRecord);
    const missing = others.filter((_file, index) => records[index] === undefined);
    if (missing.length === 0 || Date.now() > deadline) {
      return { records: records.filter((record): record is TestFileRecord => record !== undefined), missing };
    }
    await sleep(250);
  }
}

describe('the OpenAPI document', () => {
  it(
    'has no operation that no test in this run exercised',
    async () => {
      const { records, missing } = await recordsOfOtherFiles();
      expect(missing).toEqual([]);
      const exercised = new Set(records.flatMap((record) => record.operations));
      const untested = documentedOperations().filter((operation) => !exercised.has(operation));
      expect(untested).toEqual([]);
      // The walk itself must have found the document: the spec's six operations at least.
      expect(documentedOperations()).toEqual(
        expect.arrayContaining([
          'POST /v1/customers',
          'GET /v1/customers/{id}/payment-methods',
          'POST /v1/customers/{id}/payment-methods/defaults',
          'GET /v1/customers/{id}/payment-methods/defaults/{contextName}',
          'DELETE /v1/customers/{id}/payment-methods/defaults/{contextName}',
          'GET /v1/payment-intents/{id}',
        ]),
      );
    },
    WAIT_FOR_OTHER_FILES_MS + 60_000,
  );
});
