import request from 'supertest';
import type { Batch, LedgerLine } from '../../src/settlement/settlement.schemas';
import type { TestApp } from '../support/test-app';

/** The instant of a local date and time in a zone, as PostgreSQL reads it (the service's own rules). */
export async function instantOf(testApp: TestApp, local: string, timeZone: string): Promise<number> {
  const { rows } = (await testApp.db.knex.raw('select (?::timestamp at time zone ?) as at', [local, timeZone])) as { rows: Array<{ at: Date | string }> };
  return new Date((rows[0] as { at: Date | string }).at).getTime();
}

/** The location's sandbox clock moved ahead to `at` (Unix ms); it must lie ahead of the clock. */
export async function advanceTo(testApp: TestApp, location: string, at: number): Promise<void> {
  const clock = (await request(testApp.app).get('/v1/sandbox/clock').set(testApp.as(location)).expect(200)).body as { now: string };
  const seconds = Math.ceil((at - Date.parse(clock.now)) / 1000);
  if (seconds < 1) throw new Error(`the clock is at ${clock.now}, past ${new Date(at).toISOString()}`);
  await request(testApp.app).post('/v1/sandbox/clock/advance').set(testApp.as(location)).send({ seconds }).expect(200);
}

/** Moves the clock to a local date and time in the location's zone (America/New_York unless changed). */
export async function advanceToLocal(testApp: TestApp, location: string, local: string, timeZone = 'America/New_York'): Promise<void> {
  await advanceTo(testApp, location, await instantOf(testApp, local, timeZone));
}

/** Changes the location's settings and moves its clock to the day they take effect, at `localTime` there. */
export async function settleWith(testApp: TestApp, location: string, change: object, localTime = '12:00'): Promise<string> {
  const changed = await request(testApp.app).patch('/v1/location-settings').set(testApp.as(location)).send(change).expect(200);
  const { effectiveFromBusinessDate, timeZone } = changed.body.scheduled as { effectiveFromBusinessDate: string; timeZone: string };
  await advanceToLocal(testApp, location, `${effectiveFromBusinessDate} ${localTime}`, timeZone);
  return effectiveFromBusinessDate;
}

/** A batch and a line as the API answers them. */
export type BatchBody = Batch;
export type LineBody = LedgerLine;

export const batchesOf = async (testApp: TestApp, location: string, query: Record<string, string> = {}) =>
  (
    await request(testApp.app)
      .get('/v1/batches')
      .query({ limit: '100', ...query })
      .set(testApp.as(location))
      .expect(200)
  ).body.batches as BatchBody[];

/** Every line of a batch, through the paged read. */
export async function linesOfBatch(testApp: TestApp, location: string, batchId: string): Promise<LineBody[]> {
  const lines: LineBody[] = [];
  for (let startingAfter: string | undefined; ;) {
    const page = await request(testApp.app)
      .get(`/v1/batches/${batchId}/lines`)
      .query({ limit: '100', ...(startingAfter === undefined ? {} : { startingAfter }) })
      .set(testApp.as(location))
      .expect(200);
    lines.push(...page.body.lines);
    if (!page.body.hasMore) return lines;
    startingAfter = page.body.lines.at(-1).id;
  }
}
