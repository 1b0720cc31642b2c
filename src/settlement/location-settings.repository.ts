import type { Knex } from 'knex';
import { recordEvents } from '../change-log/record-events';
import type { WriteContext } from '../change-log/write-context';
import { inTransaction } from '../platform/db/in-transaction';
import { preparedStatement, runPrepared } from '../platform/db/prepared-statement';
import { dateUnder, SETTINGS_VERSIONS, settingsInForce } from './business-day-sql';
import { LOCATION_SETTINGS_DEFAULTS as DEFAULTS } from './location-settings-defaults';
import type { DisputeRules, LocationSettings, LocationSettingsVersion } from './settlement.schemas';

/** Changes of one location queue on a transaction's lock of its own. */
const CHANGES_QUEUE = preparedStatement('location_settings_changes_queue', 'select pg_advisory_xact_lock(hashtext(?))');

/** A version as read, every date as text (`YYYY-MM-DD`): PGlite and pg answer date columns differently. */
interface VersionRow {
  effective_from: string | null;
  time_zone: string;
  closeout_hour: number;
  fee_percent_bps: number;
  fee_fixed: number;
  refund_returns_fee: boolean;
  dispute_fee: number;
  bank_holidays: string;
  dispute_rules: Partial<DisputeRules> | string;
  current_business_date: string;
}

/** A version's dispute rules: what it stored over the defaults (a version made before disputes stored none). */
function disputeRulesOf(stored: Partial<DisputeRules> | string): DisputeRules {
  const rules = (typeof stored === 'string' ? JSON.parse(stored) : stored) as Partial<DisputeRules>;
  return {
    ...DEFAULTS.disputes,
    ...rules,
    responseDays: { ...DEFAULTS.disputes.responseDays, ...rules.responseDays },
    decisionDays: { ...DEFAULTS.disputes.decisionDays, ...rules.decisionDays },
  };
}

function toVersion(row: VersionRow): LocationSettingsVersion {
  return {
    timeZone: row.time_zone,
    closeoutHour: Number(row.closeout_hour),
    fees: { percentBps: row.fee_percent_bps, fixed: row.fee_fixed, refundReturnsFee: row.refund_returns_fee, disputeFee: row.dispute_fee },
    bankHolidays: JSON.parse(row.bank_holidays) as string[],
    disputes: disputeRulesOf(row.dispute_rules),
    effectiveFromBusinessDate: row.effective_from,
  };
}

/** The version in force now, and those after it (scheduled), with the business date now. */
const VERSIONS_FROM_NOW = preparedStatement(
  'location_settings_from_now',
  `select case when version.effective_from = '-infinity' then null else version.effective_from::text end as effective_from,
        version.time_zone, version.closeout_hour, version.fee_percent_bps, version.fee_fixed, version.refund_returns_fee, version.dispute_fee,
        to_json(array(select holiday::text from unnest(version.bank_holidays) as holiday order by holiday))::text as bank_holidays,
        version.dispute_rules, in_force.business_date::text as current_business_date
   from (${SETTINGS_VERSIONS}) as version cross join (${settingsInForce('?', 'now()')}) as in_force
  where version.effective_from >= in_force.effective_from
  order by version.effective_from`,
);

/** Whether PostgreSQL knows a zone, and the first business date begun under neither the settings in force (its today given) nor a new zone and cutoff. */
const EFFECTIVE_FROM = preparedStatement(
  'location_settings_effective_from',
  `select exists (select 1 from pg_timezone_names where name = ?) as known,
          (greatest(?::date, ${dateUnder('now()', '?::text', '?::int')}) + 1)::text as effective_from`,
);

/** The location's settings as the API answers them: in force now on its clock, and a scheduled change, if any. */
export async function readLocationSettings(db: Knex, locationId: string): Promise<LocationSettings> {
  const rows = await runPrepared<VersionRow>(db, VERSIONS_FROM_NOW, [locationId, locationId]);
  const [inForce, ...later] = rows as [VersionRow, ...VersionRow[]];
  const scheduled = later.at(-1);
  return {
    ...toVersion(inForce),
    currentBusinessDate: inForce.current_business_date,
    scheduled: scheduled === undefined ? null : toVersion(scheduled),
  };
}

/**
 * Stores `next` as the version in force from the first business date that
 * has begun under neither the settings in force nor `next` (so no day that
 * has lines is cut again), replacing a scheduled change, and records the
 * event, in one transaction; changes of one location queue on a lock.
 * Undefined if PostgreSQL does not know the time zone.
 */
export async function scheduleLocationSettings(
  write: WriteContext,
  change: (base: LocationSettingsVersion) => LocationSettingsVersion,
): Promise<LocationSettings | undefined> {
  return inTransaction(write.db, async (trx) => {
    await runPrepared(trx, CHANGES_QUEUE, [`location_settings:${write.locationId}`]);
    const before = await readLocationSettings(trx, write.locationId);
    const { scheduled, currentBusinessDate, ...inForce } = before;
    const next = change(scheduled ?? inForce);
    const [answer] = await runPrepared<{ known: boolean; effective_from: string }>(trx, EFFECTIVE_FROM, [
      next.timeZone,
      currentBusinessDate,
      next.timeZone,
      next.closeoutHour,
    ]);
    const { known, effective_from: effectiveFrom } = answer as { known: boolean; effective_from: string };
    if (!known) return undefined;
    await trx('location_settings').where({ location_id: write.locationId }).andWhere('effective_from', '>', currentBusinessDate).delete();
    await trx('location_settings').insert({
      location_id: write.locationId,
      effective_from: effectiveFrom,
      time_zone: next.timeZone,
      closeout_hour: next.closeoutHour,
      fee_percent_bps: next.fees.percentBps,
      fee_fixed: next.fees.fixed,
      refund_returns_fee: next.fees.refundReturnsFee,
      dispute_fee: next.fees.disputeFee,
      bank_holidays: next.bankHolidays,
      dispute_rules: JSON.stringify(next.disputes),
    });
    const settings: LocationSettings = { ...inForce, currentBusinessDate, scheduled: { ...next, effectiveFromBusinessDate: effectiveFrom } };
    await recordEvents(trx, write, [{ type: 'location_settings.updated', customerId: null, object: settings, previous: inForce }]);
    return settings;
  });
}

/** The dispute rules in force now on the location's clock (a dispute's deadlines are counted by them). */
export async function disputeRulesInForce(db: Knex, locationId: string): Promise<DisputeRules> {
  return (await readLocationSettings(db, locationId)).disputes;
}
