import { createHash } from 'node:crypto';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';

/**
 * One jest run's record of which operations each test file exercised. The
 * sequencer makes the folder and lists the run's files; each file writes its
 * record when it ends; the operation-coverage test reads them all.
 */
export const CONTRACT_RUN_DIR_VARIABLE = 'CONTRACT_RUN_DIR';

export interface TestFileRecord {
  testPath: string;
  operations: string[];
}

function runDirectory(): string | undefined {
  return process.env[CONTRACT_RUN_DIR_VARIABLE];
}

function recordFile(directory: string, testPath: string): string {
  return path.join(directory, `${createHash('sha1').update(testPath).digest('hex')}.json`);
}

export function writeTestFileRecord(record: TestFileRecord): void {
  const directory = runDirectory();
  if (directory !== undefined) writeFileSync(recordFile(directory, record.testPath), JSON.stringify(record));
}

/** The test files of this run, as the sequencer listed them. */
export function testFilesOfRun(): string[] {
  const directory = runDirectory();
  if (directory === undefined) throw new Error(`${CONTRACT_RUN_DIR_VARIABLE} is not set: run the tests with the project's jest config.`);
  return JSON.parse(readFileSync(path.join(directory, 'test-files.json'), 'utf8')) as string[];
}

/** The record of a test file, once it has ended. */
export function readTestFileRecord(testPath: string): TestFileRecord | undefined {
  const directory = runDirectory();
  if (directory === undefined) return undefined;
  const file = recordFile(directory, testPath);
  return existsSync(file) ? (JSON.parse(readFileSync(file, 'utf8')) as TestFileRecord) : undefined;
}

const DOCUMENT_FILE = 'openapi.json';

/** Writes the run's OpenAPI document, built once by the global set-up, for every test file to read. */
export function writeRunDocument(document: unknown): void {
  const directory = runDirectory();
  if (directory !== undefined) writeFileSync(path.join(directory, DOCUMENT_FILE), JSON.stringify(document));
}

/** The run's OpenAPI document, as the global set-up wrote it; undefined outside such a run. */
export function readRunDocument(): unknown {
  const directory = runDirectory();
  const file = directory === undefined ? undefined : path.join(directory, DOCUMENT_FILE);
  return file !== undefined && existsSync(file) ? JSON.parse(readFileSync(file, 'utf8')) : undefined;
}
