import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { withoutDatabases } from '../../support/pglite-template';

/**
 * The tests' PGlite template leaves out the databases it is told to (template0
 * and template1) and nothing else: read back by tar itself, every other file
 * is there with its bytes.
 */
describe("the PGlite template's tar", () => {
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(path.join(os.tmpdir(), 'cpp-template-tar-'));
    const files = { 'base/1/1259': 'template1', 'base/4/1259': 'template0', 'base/5/1259': 'postgres', 'base/14/1': 'oid 14', 'global/pg_control': 'control' };
    for (const [file, text] of Object.entries(files)) {
      mkdirSync(path.dirname(path.join(dir, 'data', file)), { recursive: true });
      writeFileSync(path.join(dir, 'data', file), text.repeat(300));
    }
    execFileSync('tar', ['--format=ustar', '-cf', path.join(dir, 'data.tar'), '-C', path.join(dir, 'data'), 'base', 'global']);
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  const listed = (tar: Buffer): string[] => {
    writeFileSync(path.join(dir, 'out.tar'), tar);
    return execFileSync('tar', ['-tf', path.join(dir, 'out.tar')], { encoding: 'utf8' })
      .split('\n')
      .filter((line) => line !== '' && !line.endsWith('/'));
  };

  it('drops the files of the databases named, and keeps every other one whole', () => {
    const kept = withoutDatabases(readFileSync(path.join(dir, 'data.tar')), [1, 4]);
    expect(listed(kept).sort()).toEqual(['base/14/1', 'base/5/1259', 'global/pg_control']);
    const out = path.join(dir, 'out');
    mkdirSync(out);
    execFileSync('tar', ['-xf', path.join(dir, 'out.tar'), '-C', out]);
    expect(readFileSync(path.join(out, 'base/5/1259'), 'utf8')).toBe('postgres'.repeat(300));
  });

  it('keeps everything when no database is named', () => {
    const tar = readFileSync(path.join(dir, 'data.tar'));
    expect(withoutDatabases(tar, [])).toBe(tar);
  });
});
