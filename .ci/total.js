// Prints each suite's count and time, then, alone on the last line, "N passed,
// N failed" over jest --json result files. A suite that could not run (it
// crashed, or wrote no results) counts as one failure. The times are there to
// be read (npm test is kept within 3 minutes alone on 2 cores, docs/performance.md):
// CI's machine is shared, so no step fails on one.
const fs = require('node:fs');
const path = require('node:path');

let passed = 0;
let failed = 0;
for (const file of process.argv.slice(2)) {
  const suite = path.basename(file, '.json');
  try {
    const results = JSON.parse(fs.readFileSync(file, 'utf8'));
    passed += results.numPassedTests;
    failed += results.numFailedTests + results.numRuntimeErrorTestSuites;
    const ended = Math.max(results.startTime, ...results.testResults.map((result) => result.endTime));
    const slowest = results.testResults.reduce((a, b) => (b.endTime - b.startTime > a.endTime - a.startTime ? b : a), results.testResults[0]);
    const slowestNote =
      slowest === undefined ? '' : `; slowest ${path.relative(process.cwd(), slowest.name)} ${((slowest.endTime - slowest.startTime) / 1000).toFixed(1)} s`;
    console.log(
      `${suite}: ${results.numTotalTests} tests in ${results.numTotalTestSuites} files, ${((ended - results.startTime) / 1000).toFixed(1)} s${slowestNote}`,
    );
  } catch {
    console.log(`${suite}: no results`);
    failed += 1;
  }
}
console.log(`${passed} passed, ${failed} failed`);
