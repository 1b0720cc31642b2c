// Build-time only: openapi-typescript is a development dependency, so the
// running service never imports this file.
import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import openapiTS, { astToString } from 'openapi-typescript';
import { API_OPERATIONS } from '../api-operations';
import { scopeTable } from '../api/scope-table';
import { buildOpenApiDocument, inReadingOrder } from './openapi-document';
import { documentYaml, GENERATED_NOTICE } from './openapi-yaml';

const ROOT = path.resolve(__dirname, '../..');

/** The generated files that are committed, and so must match a fresh generation. */
export const ARTIFACT_PATHS = {
  document: path.join(ROOT, 'openapi/openapi.yaml'),
  clientTypes: path.join(ROOT, 'src/client/api-types.ts'),
  readme: path.join(ROOT, 'README.md'),
} as const;

/** Where README's scope table starts and ends: the lines between are rendered from the operations. */
const SCOPE_TABLE_START = '<!-- scope table: generated from the operations by `npm run openapi`; edit the declarations, not these lines -->';
const SCOPE_TABLE_END = '<!-- end of the scope table -->';

/** README with its scope table rendered afresh. */
function readmeWithScopeTable(readme: string): string {
  const start = readme.indexOf(SCOPE_TABLE_START);
  const end = readme.indexOf(SCOPE_TABLE_END);
  if (start < 0 || end < start) throw new Error(`README.md lacks the scope table's markers: ${SCOPE_TABLE_START} … ${SCOPE_TABLE_END}`);
  return `${readme.slice(0, start + SCOPE_TABLE_START.length)}\n${scopeTable(inReadingOrder(API_OPERATIONS))}\n${readme.slice(end)}`;
}

/** TypeScript types of every path and schema, for the openapi-fetch client. */
export async function clientTypes(document: object): Promise<string> {
  const ast = await openapiTS(structuredClone(document) as Parameters<typeof openapiTS>[0], { alphabetize: true, defaultNonNullable: false });
  return `/* eslint-disable */\n// ${GENERATED_NOTICE}\n\n${astToString(ast)}`;
}

export async function renderArtifacts(): Promise<Record<keyof typeof ARTIFACT_PATHS, string>> {
  const document = buildOpenApiDocument();
  return {
    document: documentYaml(document),
    clientTypes: await clientTypes(document),
    readme: readmeWithScopeTable(await readFile(ARTIFACT_PATHS.readme, 'utf8')),
  };
}

/** Writes the artifacts, or with `check` only compares; answers the files that differ. */
export async function syncArtifacts(check: boolean): Promise<string[]> {
  const rendered = await renderArtifacts();
  const stale: string[] = [];
  for (const key of Object.keys(ARTIFACT_PATHS) as Array<keyof typeof ARTIFACT_PATHS>) {
    const file = ARTIFACT_PATHS[key];
    const committed = await readFile(file, 'utf8').catch(() => undefined);
    if (committed === rendered[key]) continue;
    stale.push(path.relative(ROOT, file));
    if (!check) await writeFile(file, rendered[key]);
  }
  return stale;
}
