/**
 * The hand-written ledger lines of a capture and a refund: the row the
 * service's own statement writes (docs/settlement.md, The ledger), as one
 * more statement of the move's transaction. The business date is the local
 * time less the closeout hour under the location's newest settings, or the
 * defaults; the fee, the percentage and the fixed part, or the capture
 * fee's share given back.
 */
import type { PoolClient } from 'pg';
import { v7 as uuidv7 } from 'uuid';
import { LOCATION_SETTINGS_DEFAULTS as DEFAULTS } from '../../src/settlement/location-settings-defaults';

const LINE_COLUMNS =
  'location_id, id, type, source_type, source_id, payment_intent_id, refund_id, external_reference_id, occurred_at, business_date, original_business_date, currency, gross, tip, fee, net, card_brand, card_last_four';

/** The location's newest settings with the defaults where it has none, and the business date now. */
const SETTINGS = `left join lateral (select time_zone, closeout_hour, fee_percent_bps, fee_fixed, refund_returns_fee from location_settings s
                                    where s.location_id = $1 order by effective_from desc limit 1) as stored on true
  cross join lateral (select coalesce(stored.fee_percent_bps, ${DEFAULTS.fees.percentBps}) as percent_bps, coalesce(stored.fee_fixed, ${DEFAULTS.fees.fixed}) as fixed,
                             coalesce(stored.refund_returns_fee, ${DEFAULTS.fees.refundReturnsFee}) as returns_fee,
                             ((now() at time zone coalesce(stored.time_zone, '${DEFAULTS.timeZone}'))
                               - make_interval(hours => coalesce(stored.closeout_hour, ${DEFAULTS.closeoutHour})))::date as business_date) as settings`;

export async function writeCaptureLine(client: PoolClient, locationId: string, intentId: string): Promise<void> {
  await client.query(
    `insert into ledger_lines (${LINE_COLUMNS})
     select pi.location_id, $3::uuid, 'CAPTURE', 'payment_intent', pi.id, pi.id, null, pi.external_reference_id, now(), settings.business_date, settings.business_date,
            pi.currency, pi.amount_captured, least(pi.tip, pi.amount_captured), fee.amount, pi.amount_captured - fee.amount,
            pi.latest_payment -> 'card' ->> 'brand', pi.latest_payment -> 'card' ->> 'lastFour'
       from payment_intents pi ${SETTINGS}
       cross join lateral (select round(pi.amount_captured * settings.percent_bps / 10000.0)::bigint + settings.fixed as amount) as fee
      where pi.location_id = $1 and pi.id = $2
     on conflict do nothing`,
    [locationId, intentId, uuidv7()],
  );
}

/** After the intent's `amount_refunded` has taken the refund: the share of the capture's fee it gives back. */
export async function writeRefundLine(client: PoolClient, locationId: string, refundId: string): Promise<void> {
  const share = (refunded: string) => `round(capture.fee * (${refunded}) / nullif(capture.gross, 0)::numeric)::bigint`;
  await client.query(
    `insert into ledger_lines (${LINE_COLUMNS})
     select r.location_id, $3::uuid, 'REFUND', 'refund', r.id, r.payment_intent_id, r.id, pi.external_reference_id, now(), settings.business_date,
            capture.original_business_date, pi.currency, -r.amount, 0, -back.fee, -r.amount + back.fee, capture.card_brand, capture.card_last_four
       from refunds r join payment_intents pi on pi.location_id = r.location_id and pi.id = r.payment_intent_id ${SETTINGS}
       left join ledger_lines capture
         on capture.location_id = r.location_id and capture.source_type = 'payment_intent' and capture.source_id = r.payment_intent_id and capture.type = 'CAPTURE'
       cross join lateral (select case when settings.returns_fee and capture.id is not null
                                       then ${share('pi.amount_refunded')} - ${share('pi.amount_refunded - r.amount')} else 0 end as fee) as back
      where r.location_id = $1 and r.id = $2
     on conflict do nothing`,
    [locationId, refundId, uuidv7()],
  );
}
