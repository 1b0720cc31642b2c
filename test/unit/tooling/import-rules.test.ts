import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { MODULES } from '../../../src/modules';

/**
 * The import rules of `.dependency-cruiser.cjs` (run by `npm run lint:imports`
 * in CI) hold on this tree, and fail on a tree that breaks them: a check that
 * could not fail would prove nothing. Every tree is cruised by one process
 * (test/support/cruise-trees.mjs), as loading the rules is most of a cruise.
 */
const ROOT = path.resolve(__dirname, '../../..');
const CRUISE_TREES = path.join(ROOT, 'test/support/cruise-trees.mjs');

interface Cruise {
  exitCode: number;
  output: string;
}

function writeTree(files: Record<string, string>): string {
  const root = mkdtempSync(path.join(os.tmpdir(), 'import-rules-'));
  writeFileSync(path.join(root, 'tsconfig.json'), JSON.stringify({ compilerOptions: { module: 'commonjs', strict: true } }));
  for (const [file, text] of Object.entries(files)) {
    mkdirSync(path.dirname(path.join(root, file)), { recursive: true });
    writeFileSync(path.join(root, file), text);
  }
  return root;
}

const features = MODULES.filter((module) => module.layer === 'feature');

/** The trees that break the rules, each named by what it breaks. */
const BROKEN_TREES = {
  featureUsesFlow: {
    'src/flows/checkout/checkout.flow.ts': 'export const flow = 1;\n',
    ...Object.fromEntries(
      features.map((module) => [`src/${module.folder}/uses-a-flow.ts`, "import { flow } from '../flows/checkout/checkout.flow';\nexport const used = flow;\n"]),
    ),
  },
  apiAndRegistry: {
    'src/api-operations.ts': 'export const operations = [];\n',
    'src/customers/customers.operations.ts': "import { operations } from '../api-operations';\nexport const all = operations;\n",
    'src/api/api-router.ts': "import { all } from '../customers/customers.operations';\nexport const mounted = all;\n",
    'src/idempotency/uses-api.ts': "import { mounted } from '../api/api-router';\nexport const used = mounted;\n",
  },
  platformAndCircle: {
    'src/auth/claims.ts': 'export const claims = 1;\n',
    'src/platform/uses-auth.ts': "import { claims } from '../auth/claims';\nexport const used = claims;\n",
    'src/customers/a.ts': "import { b } from './b';\nexport const a = () => b;\n",
    'src/customers/b.ts': "import { a } from './a';\nexport const b = () => a;\n",
  },
  featuresApart: {
    'src/customers/index.ts': "export { customerExists } from './customers.repository';\n",
    'src/customers/customers.repository.ts': "import { cardCount } from '../payment-methods';\nexport const customerExists = () => cardCount() >= 0;\n",
    'src/payment-methods/index.ts': "export { cardCount } from './payment-methods.repository';\n",
    'src/payment-methods/payment-methods.repository.ts': 'export const cardCount = () => 0;\n',
    'src/payment-methods/payment-methods.service.ts':
      "import { customerExists } from '../customers/customers.repository';\nexport const check = customerExists;\n",
    'src/change-log/record-events.ts': "import { customerExists } from '../customers';\nexport const record = customerExists;\n",
  },
  flows: {
    'src/customers/index.ts': "export { lockCustomer } from './customers.repository';\n",
    'src/customers/customers.repository.ts': 'export const lockCustomer = () => 1;\n',
    'src/customers/customers.service.ts': "import { erase } from '../flows/customer-erasure/customer-erasure.flow';\nexport const service = erase;\n",
    'src/flows/customer-erasure/customer-erasure.flow.ts':
      "import { lockCustomer } from '../../customers/customers.repository';\nexport const erase = lockCustomer;\n",
    'src/flows/checkout/checkout.flow.ts': "import { erase } from '../customer-erasure/customer-erasure.flow';\nexport const confirm = erase;\n",
  },
} satisfies Record<string, Record<string, string>>;

let thisTree: Cruise;
const broken = {} as Record<keyof typeof BROKEN_TREES, Cruise>;

beforeAll(async () => {
  const names = Object.keys(BROKEN_TREES) as Array<keyof typeof BROKEN_TREES>;
  const roots = names.map((name) => writeTree(BROKEN_TREES[name]));
  try {
    const { stdout } = await promisify(execFile)(process.execPath, [CRUISE_TREES, ROOT, ...roots], { cwd: ROOT, maxBuffer: 16 * 1024 * 1024 });
    const [own, ...others] = JSON.parse(stdout) as Cruise[];
    thisTree = own as Cruise;
    names.forEach((name, index) => (broken[name] = others[index] as Cruise));
  } finally {
    for (const root of roots) rmSync(root, { recursive: true, force: true });
  }
}, 60_000);

describe('the import rules', () => {
  it('are read from the one list of modules: every feature there is held to them (a flow imported from any feature fails)', () => {
    expect(features.map((module) => module.folder)).toEqual(expect.arrayContaining(['mandates', 'refunds']));
    const { exitCode, output } = broken.featureUsesFlow;
    expect(exitCode).not.toBe(0);
    for (const module of features) expect(output).toContain(`src/${module.folder}/uses-a-flow.ts`);
  });

  it('hold on this tree', () => {
    expect(thisTree).toMatchObject({ exitCode: 0 });
    expect(thisTree.output).toContain('no dependency violations found');
  });

  it('fail on an import from api/ into a feature, and from a feature into the registry', () => {
    const { exitCode, output } = broken.apiAndRegistry;
    expect(exitCode).not.toBe(0);
    expect(output).toContain('api-imports-no-feature');
    expect(output).toContain('features-import-no-registry-or-app');
    expect(output).toContain('auth-idempotency-processor-import-only-below');
  });

  it('fail on an upward import into platform/ and on a circle', () => {
    const { exitCode, output } = broken.platformAndCircle;
    expect(exitCode).not.toBe(0);
    expect(output).toContain('platform-imports-only-platform');
    expect(output).toContain('src/platform/uses-auth.ts');
    expect(output).toContain('no-circular');
    expect(output).toContain('src/customers/a.ts');
  });

  it('fail on a feature reaching into another past its index.ts, on two features importing each other, and on change-log/ importing a feature', () => {
    const { exitCode, output } = broken.featuresApart;
    expect(exitCode).not.toBe(0);
    // payment-methods past customers' index.ts; customers reaching payment-methods, which is above it (the loop's other half).
    expect(output).toMatch(/features-stay-apart: src\/payment-methods\/payment-methods\.service\.ts → src\/customers\/customers\.repository\.ts/);
    expect(output).toMatch(/features-stay-apart: src\/customers\/customers\.repository\.ts → src\/payment-methods\/index\.ts/);
    expect(output).toContain('change-log-imports-only-platform');
  });

  it('fail on a feature importing a flow, on a flow reaching past a feature index.ts, and on one flow importing another', () => {
    const { exitCode, output } = broken.flows;
    expect(exitCode).not.toBe(0);
    expect(output).toMatch(/flows-are-above-features: src\/customers\/customers\.service\.ts → src\/flows\//);
    expect(output).toMatch(/flows-are-above-features: src\/flows\/customer-erasure\/customer-erasure\.flow\.ts → src\/customers\/customers\.repository\.ts/);
    expect(output).toContain('flows-stay-apart');
  });
});
