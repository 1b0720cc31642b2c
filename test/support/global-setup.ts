import { buildOpenApiDocument } from '../../src/docs/openapi-document';
import { writeRunDocument } from './contract/contract-run';
import makePgliteTemplate from './pglite-template-setup';

/**
 * Jest's global set-up for `npm test`: what every test file would otherwise
 * make for itself, made once for the run: the migrated database template
 * (pglite-template-setup.ts) and the OpenAPI document responses are held to
 * (contract/openapi-contract.ts).
 */
export default async function globalSetup(): Promise<void> {
  writeRunDocument(buildOpenApiDocument());
  await makePgliteTemplate();
}
