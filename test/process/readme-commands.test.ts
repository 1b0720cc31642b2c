import { execFile, execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, statSync, symlinkSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { blocksOf, documentationFiles, readDoc, ROOT } from '../support/docs-blocks';
import { startServiceByShell, startSourceService } from '../support/process/service-process';

/**
 * The shell blocks of README and docs/ that are commands rather than API
 * calls: every command line of every ```sh block is either run here as
 * written, run by the API-snippet test, run by the production recipe's
 * system test, or is a step `.ci/run` itself runs word for word (the
 * suites, the document's check and lint).
 * A new block that none of these covers fails the first test.
 */
const CI_RUN = readFileSync(path.join(ROOT, '.ci/run'), 'utf8');

/** The command lines of every ```sh block: comments, blank lines and continuations dropped, trailing comments cut. */
function shellCommandLines(): string[] {
  const lines: string[] = [];
  const blocks = documentationFiles().flatMap((file) => [...readDoc(file).matchAll(/```sh\n([\s\S]*?)```/g)]);
  for (const [, block] of blocks) {
    let continued = false;
    for (const raw of (block as string).split('\n')) {
      const line = raw.replace(/\s+#\s.*$/, '').trim();
      const isContinuation = continued;
      continued = raw.trimEnd().endsWith('\\');
      if (isContinuation || line === '' || line.startsWith('#')) continue;
      lines.push(line);
    }
  }
  return lines;
}

/** Lines README's API-snippet test runs (test/process/readme-snippets.test.ts): shell variables, curl and its pipes. */
const isApiSnippet = (line: string): boolean =>
  /^(curl |[A-Z_]+=\$\(|[A-Z_]+=\(-H |[A-Z_]+=["'$a-z]|field\(\)|INTENT=|BASE=)/.test(line) ||
  // docs/settlement.md's helper that pays, and its week's loop of calls.
  /^(pay\(\) \{|local [a-z]+=\$\(curl |echo \$[a-z]+$|\}$|for day in [0-9 ]+; do$|done$|pay |\[ \$day = \d \] && curl )/.test(line) ||
  // docs/disputes.md's helpers that save a card and move the clock by days.
  /^(card\(\) \{ curl |advance\(\) \{ curl |advance \d+$)/.test(line) ||
  line.startsWith('| node -e') ||
  line.startsWith('if (!a.token)') ||
  line.startsWith('console.log(a.token');

/** Lines run word for word by a step of `.ci/run`, and where. */
const RUN_BY_CI: Record<string, RegExp> = {
  'npm test': /env "\$@" npm test --/,
  'npm run test:system': /npm run test:system --/,
  'DATABASE_URL=postgres://postgres@127.0.0.1:5432/test npm test': /suite postgres DATABASE_URL=/,
  'npm run openapi -- --check': /step "openapi is generated from the code" npm run openapi -- --check/,
  'npm run openapi:lint': /step "openapi lint" npm run openapi:lint/,
  'npm run openapi:owasp': /step "openapi OWASP rules" npm run openapi:owasp/,
  '.ci/image postgres://postgres@127.0.0.1:5432/payments ~/.cache/customer-payment-profiles-ci':
    /step "container image" \.ci\/image "\$\{CI_POSTGRES_URL%\/\*\}\/\$\{image_database\}" "\$\{ci_cache\}"/,
};

/** Lines of docs/deployment.md's first production start, run as written by test/system/process/production-recipe.test.ts. */
const RUN_BY_THE_RECIPE_TEST = new Set(
  blocksOf('docs/deployment.md', '## A first production start, without containers')
    .join('\n')
    .split('\n')
    .map((line) => line.trim()),
);

/** Lines this file runs. */
const RUN_HERE = [
  'npm install && npm start',
  'npm run openapi',
  'npm run client:new -- --id shop-backend --scope spi.customers:read --scope spi.customers:write --location store-1 --append clients.json',
];

const run = promisify(execFile);
/** The process of a group that is no other's parent: the service, under the shell and npm that started it. */
function leafOfGroup(groupId: number): number {
  const rows = execFileSync('ps', ['-e', '-o', 'pid=,ppid=,pgid='], { encoding: 'utf8' })
    .trim()
    .split('\n')
    .map((row) => row.trim().split(/\s+/).map(Number) as [number, number, number])
    .filter(([, , pgid]) => pgid === groupId);
  const leaves = rows.filter(([pid]) => !rows.some(([, ppid]) => ppid === pid));
  if (leaves.length !== 1) throw new Error(`expected one process at the bottom of group ${groupId}, found ${JSON.stringify(rows)}`);
  return (leaves[0] as [number, number, number])[0];
}
const npmEnv = {
  PATH: process.env.PATH ?? '',
  HOME: process.env.HOME ?? os.tmpdir(),
  npm_config_audit: 'false',
  npm_config_fund: 'false',
  npm_config_update_notifier: 'false',
};

describe('the shell commands of README and docs/', () => {
  it('are each run: here, by the API-snippet test, or word for word by .ci/run', () => {
    const unaccounted = shellCommandLines().filter(
      (line) => !isApiSnippet(line) && !(line in RUN_BY_CI) && !RUN_HERE.includes(line) && !RUN_BY_THE_RECIPE_TEST.has(line),
    );
    expect(unaccounted).toEqual([]);
    for (const [line, step] of Object.entries(RUN_BY_CI)) {
      expect(shellCommandLines()).toContain(line);
      expect(CI_RUN).toMatch(step);
    }
    for (const line of RUN_HERE) expect(shellCommandLines()).toContain(line);
  });

  it('`npm install && npm start` serves the API on a fresh data folder, and the dev client logs in', async () => {
    // Only the port is chosen (a free one) and the data folder (a new one): the command is README's.
    const service = await startServiceByShell('npm install && npm start', { ...npmEnv, PORT: '0' });
    try {
      const ready = await fetch(`${service.baseUrl}/health/ready`);
      expect(ready.status).toBe(200);
      const login = await fetch(`${service.baseUrl}/authentication/v1/authentication/login`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify({ clientId: 'local-dev-client', clientSecret: 'local-dev-secret', userAccessType: 'TOAST_MACHINE_CLIENT' }),
      });
      expect(login.status).toBe(200);
      // A terminal's Ctrl-C or a supervisor's SIGTERM reaches the whole group: the shell and npm die of it, and the
      // service must still shut down cleanly (its last line), however late it sees the signal. It is held stopped
      // across the signal, as a busy machine may hold it: nothing between npm and the service may decide it is hung
      // and kill it (the tsx command line did, 60 ms after relaying the signal, and the service never said "shut down").
      const servicePid = leafOfGroup(service.pid);
      process.kill(servicePid, 'SIGSTOP');
      service.signal('SIGTERM');
      await new Promise((resolve) => setTimeout(resolve, 500));
      // ESRCH here is the defect itself: something killed the service while it was held.
      process.kill(servicePid, 'SIGCONT');
      await service.exited;
    } finally {
      await service.stop();
    }
    expect(service.logLines.filter((line) => line.includes('"msg":"shut down"'))).toHaveLength(1);
  }, 180_000);

  it('`npm run openapi` runs in the checkout and finds the committed files as it would write them', async () => {
    // It writes only what is stale, so on a consistent tree it writes nothing (CI's `--check` fails otherwise).
    const { stdout } = await run('bash', ['-c', 'npm run openapi'], { cwd: ROOT, env: npmEnv, timeout: 120_000 });
    expect(stdout).toContain('OpenAPI artifacts are up to date.');
  }, 150_000);

  it('`npm run client:new -- … --append clients.json` makes a 0600 clients file in deploy/secrets/ the service accepts', async () => {
    // A folder that looks like a fresh clone to npm (the package, its dependencies and sources), so clients.json lands there.
    const dir = mkdtempSync(path.join(os.tmpdir(), 'cpp-readme-cli-'));
    for (const entry of ['package.json', 'node_modules', 'src', 'tsconfig.json']) symlinkSync(path.join(ROOT, entry), path.join(dir, entry));
    try {
      const line = RUN_HERE[2] as string;
      const { stdout, stderr } = await run('bash', ['-c', line], { cwd: dir, env: npmEnv, timeout: 60_000 });
      // A bare name goes into deploy/secrets/ (git-ignored), never the project's root.
      const file = path.join(dir, 'deploy/secrets/clients.json');
      expect(statSync(file).mode & 0o777).toBe(0o600);
      const clients = JSON.parse(readFileSync(file, 'utf8')) as { clientId: string; secretHash: string; scopes: string[]; locations: string[] }[];
      expect(clients).toEqual([
        {
          clientId: 'shop-backend',
          secretHash: expect.stringMatching(/^scrypt\$/),
          scopes: ['spi.customers:read', 'spi.customers:write'],
          locations: ['store-1'],
        },
      ]);
      // The secret is printed once, on stderr; stdout never holds it.
      const secret = /^clientSecret: +(\S+)$/m.exec(stderr)?.[1] as string;
      expect(secret).toMatch(/^\S{24,}$/);
      expect(stdout).not.toContain(secret);

      // The service takes the file as its AUTH_CLIENTS_FILE, and the client logs in with the printed secret.
      const service = await startSourceService({ AUTH_CLIENTS_FILE: file });
      try {
        const login = await fetch(`${service.baseUrl}/authentication/v1/authentication/login`, {
          method: 'POST',
          headers: { 'Content-Type': 'application/json' },
          body: JSON.stringify({ clientId: 'shop-backend', clientSecret: secret }),
        });
        expect(login.status).toBe(200);
        expect(((await login.json()) as { token: { scope: string } }).token.scope).toBe('spi.customers:read spi.customers:write');
      } finally {
        await service.stop();
      }

      // Running it again adds a second entry rather than replacing the file.
      await run('bash', ['-c', line.replace('shop-backend', 'shop-backend-2')], { cwd: dir, env: npmEnv, timeout: 60_000 });
      expect((JSON.parse(readFileSync(file, 'utf8')) as unknown[]).length).toBe(2);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 120_000);
});
