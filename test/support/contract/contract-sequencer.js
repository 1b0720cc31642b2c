const { mkdtempSync, writeFileSync } = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const Sequencer = require('@jest/test-sequencer').default;

const COVERAGE_TEST = 'every-operation-is-tested.test.ts';

/**
 * Jest's own ordering, except that the operation-coverage test goes last, and
 * a folder is made where each test file records the operations it exercised
 * (see contract-run.ts). Workers start after sorting, so they inherit the
 * folder's variable.
 */
class ContractSequencer extends Sequencer {
  sort(tests) {
    const sorted = super.sort(tests);
    const ordered = [...sorted.filter((test) => !test.path.endsWith(COVERAGE_TEST)), ...sorted.filter((test) => test.path.endsWith(COVERAGE_TEST))];
    const directory = mkdtempSync(path.join(os.tmpdir(), 'contract-run-'));
    writeFileSync(path.join(directory, 'test-files.json'), JSON.stringify(ordered.map((test) => test.path)));
    process.env.CONTRACT_RUN_DIR = directory;
    return ordered;
  }
}

module.exports = ContractSequencer;
