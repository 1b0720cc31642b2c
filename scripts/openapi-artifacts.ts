// Build-time only, outside src/: openapi-typescript is a development
// dependency, and neither this file nor what it writes is part of the service.
import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import openapiTS, { astToString } from 'openapi-typescript';
import { API_OPERATIONS } from '../src/api-operations';
import { scopeTable } from '../src/api/scope-table';
import { paymentIntentLifecycle } from '../src/payment-intents/payment-intent-lifecycle';
import { sandboxCardTable } from '../src/payment-processor/sandbox-cards';
import { refundLifecycle } from '../src/refunds/refund-status';
import { disputeLifecycle } from '../src/disputes/dispute-status';
import { outcomeRuleTable } from '../src/disputes/dispute-outcome';
import { setupIntentLifecycle } from '../src/setup-intents/setup-intent-status';
import { lineTypesTable } from '../src/settlement/ledger-line-types';
import { settingsDefaultsTable } from '../src/settlement/location-settings-defaults';
import { errorCatalogTable } from '../src/docs/error-catalog-page';
import { API_VERSION, buildOpenApiDocument, inReadingOrder } from '../src/docs/openapi-document';
import { documentYaml, GENERATED_NOTICE } from '../src/docs/openapi-yaml';

const ROOT = path.resolve(__dirname, '..');

/** The generated files that are committed, and so must match a fresh generation. */
export const ARTIFACT_PATHS = {
  document: path.join(ROOT, 'openapi/openapi.yaml'),
  clientTypes: path.join(ROOT, 'clients/typescript/src/api-types.ts'),
  clientPackage: path.join(ROOT, 'clients/typescript/package.json'),
  authenticationPage: path.join(ROOT, 'docs/authentication.md'),
  checkoutPage: path.join(ROOT, 'docs/checkout.md'),
  errorsPage: path.join(ROOT, 'docs/errors.md'),
  settlementPage: path.join(ROOT, 'docs/settlement.md'),
  disputesPage: path.join(ROOT, 'docs/disputes.md'),
  cardsOnFilePage: path.join(ROOT, 'docs/cards-on-file.md'),
} as const;

/**
 * The docs' parts rendered from the code, each between its two markers in its
 * page: the scope table from the operations, the status table from
 * payment-intent-status.ts, the error catalog from error-catalog.ts, the refund moves from refund-status.ts, the
 * sandbox's test cards from sandbox-cards.ts, the settlement defaults and
 * ledger line types from src/settlement, the dispute moves and the sandbox
 * issuer's rule from src/disputes, the setup intent moves from src/setup-intents.
 */
type GeneratedPage = 'authenticationPage' | 'checkoutPage' | 'errorsPage' | 'settlementPage' | 'disputesPage' | 'cardsOnFilePage';

const GENERATED_PARTS: Array<{ page: GeneratedPage; start: string; end: string; render: () => string }> = [
  {
    page: 'errorsPage',
    start: '<!-- error catalog: generated from error-catalog.ts by `npm run openapi`; edit the catalog there, not these lines -->',
    end: '<!-- end of the error catalog -->',
    render: errorCatalogTable,
  },
  {
    page: 'authenticationPage',
    start: '<!-- scope table: generated from the operations by `npm run openapi`; edit the declarations, not these lines -->',
    end: '<!-- end of the scope table -->',
    render: () => scopeTable(inReadingOrder(API_OPERATIONS)),
  },
  {
    page: 'checkoutPage',
    start: '<!-- status table: generated from payment-intent-status.ts by `npm run openapi`; edit the table there, not these lines -->',
    end: '<!-- end of the status table -->',
    render: paymentIntentLifecycle,
  },
  {
    page: 'checkoutPage',
    start: '<!-- refund moves: generated from refund-status.ts by `npm run openapi`; edit the moves there, not these lines -->',
    end: '<!-- end of the refund moves -->',
    render: refundLifecycle,
  },
  {
    page: 'checkoutPage',
    start: '<!-- sandbox cards: generated from sandbox-cards.ts by `npm run openapi`; edit the cards there, not these lines -->',
    end: '<!-- end of the sandbox cards -->',
    render: sandboxCardTable,
  },
  {
    page: 'settlementPage',
    start: '<!-- settings defaults: generated from location-settings-defaults.ts by `npm run openapi`; edit the defaults there, not these lines -->',
    end: '<!-- end of the settings defaults -->',
    render: settingsDefaultsTable,
  },
  {
    page: 'settlementPage',
    start: '<!-- line types: generated from ledger-line-types.ts by `npm run openapi`; edit the table there, not these lines -->',
    end: '<!-- end of the line types -->',
    render: lineTypesTable,
  },
  {
    page: 'disputesPage',
    start: '<!-- dispute moves: generated from dispute-status.ts by `npm run openapi`; edit the table there, not these lines -->',
    end: '<!-- end of the dispute moves -->',
    render: disputeLifecycle,
  },
  {
    page: 'disputesPage',
    start: '<!-- outcome rule: generated from dispute-outcome.ts by `npm run openapi`; edit the rule there, not these lines -->',
    end: '<!-- end of the outcome rule -->',
    render: outcomeRuleTable,
  },
  {
    page: 'cardsOnFilePage',
    start: '<!-- setup intent moves: generated from setup-intent-status.ts by `npm run openapi`; edit the table there, not these lines -->',
    end: '<!-- end of the setup intent moves -->',
    render: setupIntentLifecycle,
  },
];

/** A page with its generated parts rendered afresh. */
async function pageWithGeneratedParts(page: GeneratedPage): Promise<string> {
  const file = ARTIFACT_PATHS[page];
  return GENERATED_PARTS.filter((part) => part.page === page).reduce(
    (text, part) => {
      const start = text.indexOf(part.start);
      const end = text.indexOf(part.end);
      if (start < 0 || end < start) throw new Error(`${path.relative(ROOT, file)} lacks the markers: ${part.start} … ${part.end}`);
      return `${text.slice(0, start + part.start.length)}\n${part.render()}\n${text.slice(end)}`;
    },
    await readFile(file, 'utf8'),
  );
}

/** TypeScript types of every path and schema, for the openapi-fetch client. */
export async function clientTypes(document: object): Promise<string> {
  const ast = await openapiTS(structuredClone(document) as Parameters<typeof openapiTS>[0], { alphabetize: true, defaultNonNullable: false });
  return `/* eslint-disable */\n// ${GENERATED_NOTICE}\n\n${astToString(ast)}`;
}

/** The client package's manifest, its version the API's: a client's version says which API it was generated from. */
async function clientPackage(): Promise<string> {
  const manifest = JSON.parse(await readFile(ARTIFACT_PATHS.clientPackage, 'utf8')) as Record<string, unknown>;
  return `${JSON.stringify({ ...manifest, version: API_VERSION }, null, 2)}\n`;
}

export async function renderArtifacts(): Promise<Record<keyof typeof ARTIFACT_PATHS, string>> {
  const document = buildOpenApiDocument();
  return {
    document: documentYaml(document),
    clientTypes: await clientTypes(document),
    clientPackage: await clientPackage(),
    authenticationPage: await pageWithGeneratedParts('authenticationPage'),
    checkoutPage: await pageWithGeneratedParts('checkoutPage'),
    errorsPage: await pageWithGeneratedParts('errorsPage'),
    settlementPage: await pageWithGeneratedParts('settlementPage'),
    disputesPage: await pageWithGeneratedParts('disputesPage'),
    cardsOnFilePage: await pageWithGeneratedParts('cardsOnFilePage'),
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
