import { dateUnder, opensAtSql } from '../../../src/settlement/business-day-sql';
import { arrivalDateOf } from '../../../src/settlement/banking-days';
import { openTestDatabase, type TestDatabase } from '../../support/test-database';

/**
 * Issue 55: business days across daylight-saving changes in
 * America/New_York, on both change days of 2027 (14 March: 02:00 does not
 * exist; 7 November: 01:00 to 02:00 happens twice), computed by the SQL the
 * ledger dates its lines with. Runs on PGlite and, with DATABASE_URL, on PostgreSQL.
 */
let db: TestDatabase;
beforeAll(async () => {
  db = await openTestDatabase();
});
afterAll(() => db.close());

const ZONE = "'America/New_York'";

async function businessDateAt(instant: string, closeoutHour: number): Promise<string> {
  const { rows } = (await db.knex.raw(`select ${dateUnder('?::timestamptz', ZONE, '?::int')}::text as date`, [instant, closeoutHour])) as {
    rows: Array<{ date: string }>;
  };
  return (rows[0] as { date: string }).date;
}

async function dayOf(date: string, closeoutHour: number): Promise<{ opensAt: string; hours: number }> {
  // The test's own literals (a date and an hour), written into the text: the expression uses each several times.
  const opens = opensAtSql(`'${date}'::date`, ZONE, String(closeoutHour));
  const closes = opensAtSql(`('${date}'::date + 1)`, ZONE, String(closeoutHour));
  const { rows } = (await db.knex.raw(`select ${opens} as opens_at, ${closes} as closes_at`)) as {
    rows: Array<{ opens_at: Date | string; closes_at: Date | string }>;
  };
  const row = rows[0] as { opens_at: Date | string; closes_at: Date | string };
  return { opensAt: new Date(row.opens_at).toISOString(), hours: (new Date(row.closes_at).getTime() - new Date(row.opens_at).getTime()) / 3_600_000 };
}

describe('a business day across daylight-saving changes (America/New_York)', () => {
  it('lasts 23 hours on the spring change and 25 on the autumn one, its 04:00 cutoffs unmoved', async () => {
    expect(await dayOf('2027-03-13', 4)).toEqual({ opensAt: '2027-03-13T09:00:00.000Z', hours: 23 });
    expect(await dayOf('2027-03-14', 4)).toEqual({ opensAt: '2027-03-14T08:00:00.000Z', hours: 24 });
    expect(await dayOf('2027-11-06', 4)).toEqual({ opensAt: '2027-11-06T08:00:00.000Z', hours: 25 });
    expect(await businessDateAt('2027-03-14T07:59:59Z', 4)).toBe('2027-03-13');
    expect(await businessDateAt('2027-03-14T08:00:00Z', 4)).toBe('2027-03-14');
    expect(await businessDateAt('2027-11-07T08:59:59Z', 4)).toBe('2027-11-06');
    expect(await businessDateAt('2027-11-07T09:00:00Z', 4)).toBe('2027-11-07');
  });

  it('starts a day whose cutoff hour does not exist (02:00 on 14 March) at the first instant after it, 03:00 EDT', async () => {
    // The 13th runs from 02:00 EST to 03:00 EDT (24 hours), the 14th from there to 02:00 EDT on the 15th (23).
    expect(await dayOf('2027-03-13', 2)).toEqual({ opensAt: '2027-03-13T07:00:00.000Z', hours: 24 });
    expect(await dayOf('2027-03-14', 2)).toEqual({ opensAt: '2027-03-14T07:00:00.000Z', hours: 23 });
    expect(await businessDateAt('2027-03-14T06:59:59Z', 2)).toBe('2027-03-13');
    expect(await businessDateAt('2027-03-14T07:00:00Z', 2)).toBe('2027-03-14');
  });

  it('starts a day whose cutoff hour happens twice (01:00 on 7 November) at its first occurrence, 01:00 EDT', async () => {
    expect(await dayOf('2027-11-07', 1)).toEqual({ opensAt: '2027-11-07T05:00:00.000Z', hours: 25 });
    expect(await dayOf('2027-11-06', 1)).toEqual({ opensAt: '2027-11-06T05:00:00.000Z', hours: 24 });
    expect(await businessDateAt('2027-11-07T04:59:59Z', 1)).toBe('2027-11-06');
    // The first 01:30 (EDT) and the second (EST) are both the new day.
    expect(await businessDateAt('2027-11-07T05:30:00Z', 1)).toBe('2027-11-07');
    expect(await businessDateAt('2027-11-07T06:30:00Z', 1)).toBe('2027-11-07');
  });
});

describe('a payout’s arrival date', () => {
  it('is the next banking day after the close: Toast’s table for the 4 a.m. batch, and holidays skipped', () => {
    // 2027-03-01 is a Monday.
    expect(arrivalDateOf('2027-03-01', [])).toBe('2027-03-03');
    expect(arrivalDateOf('2027-03-04', [])).toBe('2027-03-08');
    expect(arrivalDateOf('2027-03-05', [])).toBe('2027-03-08');
    expect(arrivalDateOf('2027-03-06', [])).toBe('2027-03-08');
    expect(arrivalDateOf('2027-03-07', [])).toBe('2027-03-09');
    expect(arrivalDateOf('2027-03-05', ['2027-03-08'])).toBe('2027-03-09');
  });
});
