import { LOCATION_SETTINGS_DEFAULTS as DEFAULTS } from './location-settings-defaults';

/**
 * A business day in SQL, the one place it is computed (docs/settlement.md,
 * Business days). Business date D runs from D at the closeout hour, local,
 * to D+1 at the closeout hour: an instant's date is its local time less the
 * closeout hour, as a date. Across daylight-saving changes that gives a
 * 23- or 25-hour day; a cutoff hour that does not exist on a date starts the
 * day at the first instant after it, and one that occurs twice at its first
 * occurrence (the local clock passes the hour then).
 *
 * Settings are versions, each in force from its `effective_from` date; the
 * defaults are the version before every other. The version an instant falls
 * under is the newest whose own day has begun by then; its date is clamped
 * below the next version's first date, so days stay contiguous when a change
 * moves the cutoff later.
 */

/** The defaults as the version in force before any stored one. */
const DEFAULT_VERSION = `select '-infinity'::date as effective_from, '${DEFAULTS.timeZone}'::text as time_zone, ${DEFAULTS.closeoutHour}::smallint as closeout_hour,
         ${DEFAULTS.fees.percentBps} as fee_percent_bps, ${DEFAULTS.fees.fixed} as fee_fixed, ${DEFAULTS.fees.refundReturnsFee} as refund_returns_fee,
         ${DEFAULTS.fees.disputeFee} as dispute_fee, '{}'::date[] as bank_holidays, '{}'::jsonb as dispute_rules`;

const SETTINGS_COLUMNS = 'effective_from, time_zone, closeout_hour, fee_percent_bps, fee_fixed, refund_returns_fee, dispute_fee, bank_holidays, dispute_rules';

/** An instant's local date less the closeout hour: the business date under one version's zone and cutoff. */
export function dateUnder(at: string, timeZone: string, closeoutHour: string): string {
  return `(((${at}) at time zone ${timeZone}) - make_interval(hours => ${closeoutHour}))::date`;
}

/**
 * A query answering one row: the location's settings in force at the
 * instant `at` (SQL expressions), and `business_date`, the instant's
 * business date. For a lateral join in a movement's statement.
 */
export function settingsInForce(location: string, at: string): string {
  return `select versions.*, least(versions.local_date, versions.next_from - 1) as business_date
     from (select version.*, lead(version.effective_from) over (order by version.effective_from) as next_from,
                  ${dateUnder(at, 'version.time_zone', 'version.closeout_hour')} as local_date
             from (select ${SETTINGS_COLUMNS} from location_settings where location_id = ${location}
                   union all ${DEFAULT_VERSION}) as version) as versions
    where versions.local_date >= versions.effective_from
    order by versions.effective_from desc limit 1`;
}

/**
 * The first instant of business date `date` under a zone and cutoff: the
 * local time D + closeout hour, or, where that hour occurs twice, its first
 * occurrence (PostgreSQL reads an ambiguous local time as the later one,
 * and a missing one as the first instant after the gap, as wanted).
 */
export function opensAtSql(date: string, timeZone: string, closeoutHour: string): string {
  const local = `(${date}::timestamp + make_interval(hours => ${closeoutHour}))`;
  const later = `(${local} at time zone ${timeZone})`;
  // The same local time read with the offset in force three hours before: the earlier occurrence, if there is one.
  const earlier = `((${local} - ((${later} - interval '3 hours') at time zone ${timeZone} - (${later} - interval '3 hours') at time zone 'UTC')) at time zone 'UTC')`;
  return `(case when ${earlier} < ${later} and (${earlier} at time zone ${timeZone}) = ${local} then ${earlier} else ${later} end)`;
}

/** The settings version in force on business date `date` (SQL): the newest whose first date is not after it. */
export function versionOnDate(location: string, date: string): string {
  return `select * from (select ${SETTINGS_COLUMNS} from location_settings where location_id = ${location} union all ${DEFAULT_VERSION}) as version
    where version.effective_from <= ${date} order by version.effective_from desc limit 1`;
}

/** The stored versions' columns and the default version, for the settings read. */
export const SETTINGS_VERSIONS = `select ${SETTINGS_COLUMNS} from location_settings where location_id = ? union all ${DEFAULT_VERSION}`;
