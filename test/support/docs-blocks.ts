import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';

/** The repository's root. */
export const ROOT = path.resolve(__dirname, '../..');

/** README.md and every page of docs/: where a reader meets the commands and calls the tests run. */
export function documentationFiles(): string[] {
  const docs = readdirSync(path.join(ROOT, 'docs'))
    .filter((name) => name.endsWith('.md'))
    .sort()
    .map((name) => `docs/${name}`);
  return ['README.md', ...docs];
}

export function readDoc(file: string): string {
  return readFileSync(path.join(ROOT, file), 'utf8');
}

/**
 * The ```lang blocks of a file between a heading and the next heading of the
 * same level or above (lines inside a block, `# comments` among them, are
 * never headings).
 */
export function blocksOf(file: string, heading: string, lang = 'sh'): string[] {
  const level = heading.split(' ')[0]?.length ?? 0;
  const blocks: string[] = [];
  let inSection = false;
  let block: string[] | undefined;
  let fenced = false;
  for (const line of readDoc(file).split('\n')) {
    if (line.startsWith('```')) {
      if (!fenced && inSection && line === `\`\`\`${lang}`) block = [];
      else if (fenced && block !== undefined) {
        blocks.push(`${block.join('\n')}\n`);
        block = undefined;
      }
      fenced = !fenced;
      continue;
    }
    if (fenced) {
      block?.push(line);
      continue;
    }
    const headingLevel = /^(#+) /.exec(line)?.[1]?.length;
    if (line === heading) inSection = true;
    else if (inSection && headingLevel !== undefined && headingLevel <= level) break;
  }
  if (!inSection) throw new Error(`${file} has no section ${heading}`);
  return blocks;
}
