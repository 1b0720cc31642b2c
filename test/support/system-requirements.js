// What `npm run test:system` needs, checked before any test runs rather than
// met as a failure in the middle of one. What Debian's packages can give is
// installed when the run is root (as in CI); what they cannot (the server's
// own set-up) is said, with how to get it.
const { execFileSync } = require('node:child_process');
const { existsSync, readdirSync, statSync } = require('node:fs');
const path = require('node:path');
const { Client } = require('pg');

const ROOT = path.resolve(__dirname, '../..');

/** Debian's packages the suite uses, each with the file that shows it is installed. */
const PACKAGES = [
  { name: 'pgbouncer', file: '/usr/sbin/pgbouncer', usedBy: 'test/system/process/pgbouncer.test.ts' },
  { name: 'chromium', file: '/usr/bin/chromium', usedBy: 'test/system/browser/docs-page.test.ts' },
  { name: 'pg-auto-failover-cli', file: '/usr/bin/pg_autoctl', usedBy: 'test/system/process/failover.test.ts' },
  {
    name: 'postgresql-15-auto-failover',
    file: '/usr/share/postgresql/15/extension/pgautofailover.control',
    usedBy: 'test/system/process/failover.test.ts (the monitor)',
  },
  {
    name: 'libjemalloc2',
    file: `/usr/lib/${process.arch === 'arm64' ? 'aarch64' : 'x86_64'}-linux-gnu/libjemalloc.so.2`,
    usedBy: 'npm run bench, after this suite in .ci/run (the service preloads it, as its image does)',
  },
];

function aptInstall(names) {
  const install = () => execFileSync('apt-get', ['install', '-y', '--no-install-recommends', ...names], { stdio: 'ignore' });
  try {
    install();
  } catch {
    execFileSync('apt-get', ['update'], { stdio: 'ignore' });
    install();
  }
}

function installMissingPackages() {
  const missing = PACKAGES.filter((pkg) => !existsSync(pkg.file));
  if (missing.length === 0) return [];
  const canInstall = process.getuid?.() === 0 && existsSync('/usr/bin/apt-get');
  if (canInstall) {
    process.stderr.write(`test:system: installing ${missing.map((pkg) => pkg.name).join(', ')} from Debian's packages\n`);
    try {
      aptInstall(missing.map((pkg) => pkg.name));
    } catch (error) {
      return [`apt-get install ${missing.map((pkg) => pkg.name).join(' ')} failed (${error.message})`];
    }
  }
  return missing.filter((pkg) => !existsSync(pkg.file)).map((pkg) => `${pkg.file} is missing (${pkg.usedBy}): as root, apt-get install -y ${pkg.name}`);
}

async function serverProblems() {
  const client = new Client({ connectionString: 'postgres://postgres@127.0.0.1:5432/postgres', connectionTimeoutMillis: 5000 });
  try {
    await client.connect();
    await client.query('select 1');
    return [];
  } catch (error) {
    return [
      `a PostgreSQL server at 127.0.0.1:5432 that the postgres user reaches without a password (${error.message}): ` +
        'on Debian, apt-get install -y postgresql, then trust local TCP connections for postgres in pg_hba.conf',
    ];
  } finally {
    await client.end().catch(() => undefined);
  }
}

/** initdb and pg_ctl, for the tests that start clusters of their own (test/support/process/own-postgres-cluster.ts). */
function clusterToolProblems() {
  const root = '/usr/lib/postgresql';
  const versions = existsSync(root) ? readdirSync(root).filter((version) => existsSync(path.join(root, version, 'bin/initdb'))) : [];
  return versions.length > 0 ? [] : [`initdb under ${root}/<version>/bin (Debian's postgresql package) for the clusters the tests start`];
}

/** The newest modification time under a folder, in ms. */
function newestChange(folder) {
  let newest = 0;
  for (const entry of readdirSync(folder, { withFileTypes: true })) {
    const file = path.join(folder, entry.name);
    newest = Math.max(newest, entry.isDirectory() ? newestChange(file) : statSync(file).mtimeMs);
  }
  return newest;
}

/** The browser and production-build tests run dist/: built here when missing or older than src/. */
function buildIfStale() {
  const built = path.join(ROOT, 'dist/src/server.js');
  if (existsSync(built) && statSync(built).mtimeMs >= newestChange(path.join(ROOT, 'src'))) return;
  process.stderr.write('test:system: building dist/ (npm run build)\n');
  execFileSync('npm', ['run', '-s', 'build'], { cwd: ROOT, stdio: 'inherit' });
}

module.exports = async function systemRequirements() {
  const problems = [...(await serverProblems()), ...clusterToolProblems(), ...installMissingPackages()];
  if (problems.length > 0) {
    throw new Error(`npm run test:system needs:\n- ${problems.join('\n- ')}\n\`npm test\` needs none of it.`);
  }
  buildIfStale();
};
