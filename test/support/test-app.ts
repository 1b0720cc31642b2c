import type { Express } from 'express';
import { createApp } from '../../src/app';
import { createLogger } from '../../src/platform/logger';
import { openTestDatabase, type TestDatabase } from './test-database';

export interface TestApp {
  app: Express;
  db: TestDatabase;
  /** Every log line the app wrote, as written. */
  logLines: string[];
  close(): Promise<void>;
}

/** The real app over a real (test) database, with its log captured for assertions. */
export async function startTestApp(): Promise<TestApp> {
  const db = await openTestDatabase();
  const logLines: string[] = [];
  const logger = createLogger({ level: 'info', destination: { write: (line: string) => logLines.push(line) } });
  return { app: createApp({ db: db.knex, logger }), db, logLines, close: () => db.close() };
}

/** Log lines parsed as JSON objects. */
export function parsedLogs(logLines: readonly string[]): Array<Record<string, unknown>> {
  return logLines.map((line) => JSON.parse(line) as Record<string, unknown>);
}
