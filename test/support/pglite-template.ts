import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

/**
 * A migrated PGlite data folder, made once per set of migrations and shared
 * by every test file: each file's database starts as a copy of it instead of
 * creating and migrating one of its own (seconds each, most of a file's set-up).
 * Named by a hash of the migrations, so a changed migration makes a new one.
 */
const MIGRATIONS = path.resolve(__dirname, '../../migrations');

export function templatePath(): string {
  const hash = createHash('sha256');
  for (const name of readdirSync(MIGRATIONS).sort()) hash.update(name).update(readFileSync(path.join(MIGRATIONS, name)));
  return path.join(os.tmpdir(), `cpp-pglite-template-${hash.digest('hex').slice(0, 16)}.tar`);
}

let loaded: Blob | undefined;

/** The template, read once per test process; undefined if none was made (a test run outside jest's global set-up). */
export function pgliteTemplate(): Blob | undefined {
  if (loaded !== undefined) return loaded;
  const file = templatePath();
  if (!existsSync(file)) return undefined;
  loaded = new Blob([readFileSync(file)]);
  return loaded;
}

/** Writes the template where pgliteTemplate() reads it; atomic, so a concurrent reader sees the whole file or none. */
export function saveTemplate(dump: Buffer): void {
  const file = templatePath();
  const partial = `${file}.${process.pid}.partial`;
  writeFileSync(partial, dump);
  renameSync(partial, file);
}
