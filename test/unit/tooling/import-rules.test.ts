import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { MODULES } from '../../../src/modules';

/**
 * The import rules of `.dependency-cruiser.cjs` (run by `npm run lint:imports`
 * in CI) hold on this tree, and fail on a tree that breaks them: a check that
 * could not fail would prove nothing.
 */
const ROOT = path.resolve(__dirname, '../../..');
const DEPCRUISE = path.join(ROOT, 'node_modules/.bin/depcruise');
const CONFIG = path.join(ROOT, '.dependency-cruiser.cjs');

async function cruise(cwd: string): Promise<{ exitCode: number; output: string }> {
  try {
    const { stdout } = await promisify(execFile)(DEPCRUISE, ['src', '--config', CONFIG], { cwd });
    return { exitCode: 0, output: stdout };
  } catch (error) {
    const failed = error as { code?: number; stdout?: string };
    return { exitCode: failed.code ?? 1, output: failed.stdout ?? '' };
  }
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

describe('the import rules', () => {
  it('are read from the one list of modules: every feature there is held to them (a flow imported from any feature fails)', async () => {
    const features = MODULES.filter((module) => module.layer === 'feature');
    expect(features.map((module) => module.folder)).toEqual(expect.arrayContaining(['mandates', 'refunds']));
    const root = writeTree({
      'src/flows/checkout/checkout.flow.ts': 'export const flow = 1;\n',
      ...Object.fromEntries(
        features.map((module) => [
          `src/${module.folder}/uses-a-flow.ts`,
          "import { flow } from '../flows/checkout/checkout.flow';\nexport const used = flow;\n",
        ]),
      ),
    });
    try {
      const { exitCode, output } = await cruise(root);
      expect(exitCode).not.toBe(0);
      for (const module of features) expect(output).toContain(`src/${module.folder}/uses-a-flow.ts`);
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  }, 60_000);

  it('hold on this tree', async () => {
    expect(await cruise(ROOT)).toMatchObject({ exitCode: 0 });
  }, 60_000);

  it('fail on an import from api/ into a feature, and from a feature into the registry', async () => {
    const root = writeTree({
      'src/api-operations.ts': 'export const operations = [];\n',
      'src/customers/customers.operations.ts': "import { operations } from '../api-operations';\nexport const all = operations;\n",
      'src/api/api-router.ts': "import { all } from '../customers/customers.operations';\nexport const mounted = all;\n",
      'src/idempotency/uses-api.ts': "import { mounted } from '../api/api-router';\nexport const used = mounted;\n",
    });
    try {
      const { exitCode, output } = await cruise(root);
      expect(exitCode).not.toBe(0);
      expect(output).toContain('api-imports-no-feature');
      expect(output).toContain('features-import-no-registry-or-app');
      expect(output).toContain('auth-idempotency-processor-import-only-below');
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  }, 60_000);

  it('fail on an upward import into platform/ and on a circle', async () => {
    const root = writeTree({
      'src/auth/claims.ts': 'export const claims = 1;\n',
      'src/platform/uses-auth.ts': "import { claims } from '../auth/claims';\nexport const used = claims;\n",
      'src/customers/a.ts': "import { b } from './b';\nexport const a = () => b;\n",
      'src/customers/b.ts': "import { a } from './a';\nexport const b = () => a;\n",
    });
    try {
      const { exitCode, output } = await cruise(root);
      expect(exitCode).not.toBe(0);
      expect(output).toContain('platform-imports-only-platform');
      expect(output).toContain('src/platform/uses-auth.ts');
      expect(output).toContain('no-circular');
      expect(output).toContain('src/customers/a.ts');
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  }, 60_000);

  it('fail on a feature reaching into another past its index.ts, on two features importing each other, and on change-log/ importing a feature', async () => {
    const root = writeTree({
      'src/customers/index.ts': "export { customerExists } from './customers.repository';\n",
      'src/customers/customers.repository.ts': "import { cardCount } from '../payment-methods';\nexport const customerExists = () => cardCount() >= 0;\n",
      'src/payment-methods/index.ts': "export { cardCount } from './payment-methods.repository';\n",
      'src/payment-methods/payment-methods.repository.ts': 'export const cardCount = () => 0;\n',
      'src/payment-methods/payment-methods.service.ts':
        "import { customerExists } from '../customers/customers.repository';\nexport const check = customerExists;\n",
      'src/change-log/record-events.ts': "import { customerExists } from '../customers';\nexport const record = customerExists;\n",
    });
    try {
      const { exitCode, output } = await cruise(root);
      expect(exitCode).not.toBe(0);
      // payment-methods past customers' index.ts; customers reaching payment-methods, which is above it (the loop's other half).
      expect(output).toMatch(/features-stay-apart: src\/payment-methods\/payment-methods\.service\.ts → src\/customers\/customers\.repository\.ts/);
      expect(output).toMatch(/features-stay-apart: src\/customers\/customers\.repository\.ts → src\/payment-methods\/index\.ts/);
      expect(output).toContain('change-log-imports-only-platform');
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  }, 60_000);

  it('fail on a feature importing a flow, on a flow reaching past a feature index.ts, and on one flow importing another', async () => {
    const root = writeTree({
      'src/customers/index.ts': "export { lockCustomer } from './customers.repository';\n",
      'src/customers/customers.repository.ts': 'export const lockCustomer = () => 1;\n',
      'src/customers/customers.service.ts': "import { erase } from '../flows/customer-erasure/customer-erasure.flow';\nexport const service = erase;\n",
      'src/flows/customer-erasure/customer-erasure.flow.ts':
        "import { lockCustomer } from '../../customers/customers.repository';\nexport const erase = lockCustomer;\n",
      'src/flows/checkout/checkout.flow.ts': "import { erase } from '../customer-erasure/customer-erasure.flow';\nexport const confirm = erase;\n",
    });
    try {
      const { exitCode, output } = await cruise(root);
      expect(exitCode).not.toBe(0);
      expect(output).toMatch(/flows-are-above-features: src\/customers\/customers\.service\.ts → src\/flows\//);
      expect(output).toMatch(/flows-are-above-features: src\/flows\/customer-erasure\/customer-erasure\.flow\.ts → src\/customers\/customers\.repository\.ts/);
      expect(output).toContain('flows-stay-apart');
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  }, 60_000);
});
