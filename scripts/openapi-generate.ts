import { syncArtifacts } from './openapi-artifacts';

/**
 * `npm run openapi` regenerates openapi/openapi.yaml, the typed client's
 * types (clients/typescript) and the generated tables of docs/;
 * `npm run openapi -- --check` (CI) fails when the committed files differ.
 */
async function main(): Promise<void> {
  const check = process.argv.includes('--check');
  const stale = await syncArtifacts(check);
  if (check && stale.length > 0) {
    process.stderr.write(`Out of date with the zod schemas: ${stale.join(', ')}. Run \`npm run openapi\` and commit the result.\n`);
    process.exitCode = 1;
    return;
  }
  process.stdout.write(stale.length === 0 ? 'OpenAPI artifacts are up to date.\n' : `Wrote ${stale.join(', ')}.\n`);
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? error.stack : String(error)}\n`);
  process.exitCode = 1;
});
