import { createHash } from 'node:crypto';
import { cpSync, existsSync, mkdtempSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { PGlite } from '@electric-sql/pglite';

/**
 * A migrated PGlite data folder, made once per set of migrations and shared
 * by every test file: each file's database starts as a copy of it instead of
 * creating and migrating one of its own (seconds each, most of a file's set-up).
 * Named by a hash of the migrations, so a changed migration makes a new one.
 */
const MIGRATIONS = path.resolve(__dirname, '../../migrations');

/** What the template holds beside the migrated schema; changed when its making changes. */
const TEMPLATE_MAKING = 'migrated, without template0 and template1';

export function templatePath(): string {
  const hash = createHash('sha256');
  // And how it is made: a template of an older making is not taken for this one.
  hash.update(TEMPLATE_MAKING);
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

/**
 * Copies the template into `into` as a data folder on disk, as PGlite leaves
 * one it has closed (a process test's DATA_DIR/pglite). The folder is made
 * from the template once, through PGlite itself, and then copied, which
 * costs far less CPU than PGlite writing it again for every service. Named
 * after the template, so a new template makes a new folder. False when there
 * is no template.
 */
export async function copyTemplateFolder(into: string): Promise<boolean> {
  const template = pgliteTemplate();
  if (template === undefined) return false;
  const folder = `${templatePath()}.folder`;
  if (!existsSync(folder)) {
    // Made aside and renamed into place: a concurrent maker's rename wins, and a reader never sees half a folder.
    const partial = mkdtempSync(`${folder}.${process.pid}.`);
    const pglite = new PGlite(path.join(partial, 'pglite'), { loadDataDir: template });
    await pglite.waitReady;
    await pglite.close();
    try {
      renameSync(path.join(partial, 'pglite'), folder);
    } catch (error) {
      if (!existsSync(folder)) throw error;
    } finally {
      rmSync(partial, { recursive: true, force: true });
    }
  }
  cpSync(folder, into, { recursive: true });
  return true;
}

const TAR_BLOCK = 512;

/**
 * A data folder's tar (PGlite's dumpDataDir) without the files under
 * base/<oid>/ of the databases named: PGlite reads every file of the tar into
 * its memory at each start, header by header in JavaScript, and template0 and
 * template1 are more than half of them. Nothing the tests run creates a
 * database, so no copy needs them.
 */
export function withoutDatabases(tar: Buffer, oids: readonly number[]): Buffer {
  // No oid would make the pattern `base/()`: every database's files.
  if (oids.length === 0) return tar;
  const dropped = new RegExp(`^/?base/(${oids.join('|')})(/|$)`);
  const kept: Buffer[] = [];
  for (let offset = 0; offset + TAR_BLOCK <= tar.length;) {
    const header = tar.subarray(offset, offset + TAR_BLOCK);
    if (header.every((byte) => byte === 0)) break;
    const field = (start: number, length: number) =>
      header
        .subarray(start, start + length)
        .toString('latin1')
        .replace(/\0.*$/s, '');
    const size = Number.parseInt(field(124, 12).trim() || '0', 8);
    const span = TAR_BLOCK + Math.ceil(size / TAR_BLOCK) * TAR_BLOCK;
    if (!dropped.test(field(0, 100))) kept.push(tar.subarray(offset, offset + span));
    offset += span;
  }
  // A tar ends with two empty blocks.
  return Buffer.concat([...kept, Buffer.alloc(2 * TAR_BLOCK)]);
}
