// Runs the production build the way the Dockerfile does: in a copy holding only
// package.json, package-lock.json and dist/, with `npm ci --omit=dev`, as
// NODE_ENV=production with a real signing key and client, on the PostgreSQL
// database given. Then a smoke request through it, and a SIGTERM that must
// end in exit 0.
//   node .ci/production-smoke.js <database-url>
const { execFileSync, spawn } = require('node:child_process');
const { cpSync, mkdtempSync, rmSync, writeFileSync } = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const readline = require('node:readline');

const root = path.resolve(__dirname, '..');

function check(condition, message) {
  if (!condition) throw new Error(message);
}

async function main() {
  const databaseUrl = process.argv[2];
  check(databaseUrl, 'usage: production-smoke.js <database-url>');
  const copy = mkdtempSync(path.join(os.tmpdir(), 'cpp-prod-'));
  try {
    for (const entry of ['package.json', 'package-lock.json', 'dist']) cpSync(path.join(root, entry), path.join(copy, entry), { recursive: true });
    execFileSync('npm', ['ci', '--omit=dev', '--no-audit', '--no-fund', '--ignore-scripts'], { cwd: copy, stdio: 'inherit' });

    const { newSigningJwk } = require(path.join(copy, 'dist/src/auth/signing-keys.js'));
    const { hashClientSecret } = require(path.join(copy, 'dist/src/auth/client-secret.js'));
    const keyFile = path.join(copy, 'signing-key.json');
    writeFileSync(keyFile, JSON.stringify(await newSigningJwk()), { mode: 0o600 });
    const { withNewKey } = require(path.join(copy, 'dist/src/platform/secrets/secret-box.js'));
    const keyringFile = path.join(copy, 'secrets-keyring.json');
    writeFileSync(keyringFile, JSON.stringify(withNewKey()), { mode: 0o600 });
    const secret = 'smoke-test-secret-0123456789';
    const clients = [
      { clientId: 'smoke-client', secretHash: await hashClientSecret(secret), scopes: ['spi.customers:write', 'spi.customers:read'], locations: ['*'] },
    ];

    const server = spawn(process.execPath, ['dist/src/server.js'], {
      cwd: copy,
      env: {
        PATH: process.env.PATH,
        NODE_ENV: 'production',
        DATABASE_URL: databaseUrl,
        AUTH_SIGNING_KEY_FILE: keyFile,
        SECRETS_ENCRYPTION_KEY_FILE: keyringFile,
        AUTH_CLIENTS: JSON.stringify(clients),
        // The only payment processor there is today; production refuses it unless told.
        ALLOW_SANDBOX_PROCESSOR: 'true',
        HOST: '127.0.0.1',
        PORT: '0',
        METRICS_PORT: '0',
      },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    const exited = new Promise((resolve) => server.once('exit', resolve));
    const port = await new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error('the production build did not start')), 60_000);
      readline.createInterface({ input: server.stdout }).on('line', (line) => {
        process.stdout.write(`  | ${line}\n`);
        try {
          const entry = JSON.parse(line);
          if (entry.msg === 'listening') {
            clearTimeout(timer);
            resolve(entry.port);
          }
        } catch {
          // not a log line
        }
      });
      exited.then((code) => reject(new Error(`the production build exited with ${code}`)));
    });
    const base = `http://127.0.0.1:${port}`;

    const login = await fetch(`${base}/authentication/v1/authentication/login`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ clientId: 'smoke-client', clientSecret: secret }),
    });
    check(login.status === 200, `login answered ${login.status}`);
    const token = (await login.json()).token.accessToken;
    const created = await fetch(`${base}/v1/customers`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${token}`, 'Platform-Restaurant-External-ID': 'smoke', 'Content-Type': 'application/json' },
      body: JSON.stringify({ externalReferenceId: 'smoke-1' }),
    });
    check(created.status === 200, `create customer answered ${created.status}`);
    const ready = await fetch(`${base}/health/ready`);
    check(ready.status === 200, `readiness answered ${ready.status}`);
    const docs = await fetch(`${base}/docs/`);
    check(docs.status === 200, `the docs page answered ${docs.status}`);

    server.kill('SIGTERM');
    const code = await exited;
    check(code === 0, `SIGTERM ended the process with ${code}`);
    console.log('::: production build: login, create customer, readiness, docs and graceful stop all passed');
  } finally {
    rmSync(copy, { recursive: true, force: true });
  }
}

main().catch((error) => {
  console.error(`::: production smoke failed: ${error.message}`);
  process.exit(1);
});
