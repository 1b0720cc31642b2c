// Prints "N passed, N failed" over jest --json result files. A suite that
// could not run (it crashed, or wrote no results) counts as one failure.
const fs = require('node:fs');

let passed = 0;
let failed = 0;
for (const file of process.argv.slice(2)) {
  try {
    const results = JSON.parse(fs.readFileSync(file, 'utf8'));
    passed += results.numPassedTests;
    failed += results.numFailedTests + results.numRuntimeErrorTestSuites;
  } catch {
    failed += 1;
  }
}
console.log(`${passed} passed, ${failed} failed`);
