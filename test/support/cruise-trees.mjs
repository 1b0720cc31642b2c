/**
 * Runs dependency-cruiser with the project's rules (.dependency-cruiser.cjs)
 * on each folder named on the command line, as `depcruise src --config …`
 * run in that folder would, and prints one JSON array of `{ exitCode, output }`
 * (the `err` report), one per folder, in order. One process for every tree:
 * the rules load src/modules.ts through tsx, most of a cruise's cost, which
 * one `depcruise` process a tree paid again for each
 * (test/unit/tooling/import-rules.test.ts).
 */
import path from 'node:path';
import { cruise } from 'dependency-cruiser';
import extractDepcruiseOptions from 'dependency-cruiser/config-utl/extract-depcruise-options';
import extractTSConfig from 'dependency-cruiser/config-utl/extract-ts-config';

const CONFIG = path.resolve(import.meta.dirname, '../../.dependency-cruiser.cjs');
const options = await extractDepcruiseOptions(CONFIG);

const results = [];
for (const root of process.argv.slice(2)) {
  process.chdir(root);
  const tsConfig = extractTSConfig(path.join(root, options.tsConfig.fileName));
  const { output, exitCode } = await cruise(['src'], { ...options, outputType: 'err' }, undefined, { tsConfig });
  results.push({ exitCode, output });
}
process.stdout.write(JSON.stringify(results));
