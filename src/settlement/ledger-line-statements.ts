import { settingsInForce } from './business-day-sql';
import type { DisputeLineType } from './ledger-line-types';

/**
 * The ledger lines a movement's own statement writes (a CTE each, as the
 * change log's event is): the line commits with the movement or not at
 * all, and the unique key (location, source, type) keeps it to one,
 * whatever retries or sweeps race. Each is stamped with the statement's
 * `now()` (the location's clock) and dated by the settings in force then;
 * amounts are the money's sign for the merchant (docs/settlement.md).
 *
 * The payment-intents and refunds features put these in their statements,
 * binding `@<name>_id` to a new UUIDv7 (lines list in the order written):
 * the ledger's table is named here, in its own feature, alone.
 */

const LINE_COLUMNS =
  'location_id, id, type, source_type, source_id, payment_intent_id, refund_id, external_reference_id, occurred_at, business_date, original_business_date, currency, gross, tip, fee, net, card_brand, card_last_four';

/** The line of the capture the CTE `source` moved (an intent row, its `amount_captured` just set), if `when` holds. */
export function captureLineWrite(name: string, source: string, when: string): string {
  const id = `@${name}_id::uuid`;
  const fee = `(round(${source}.amount_captured * settings.fee_percent_bps / 10000.0)::bigint + settings.fee_fixed)`;
  return `${name} as (
     insert into ledger_lines (${LINE_COLUMNS})
     select ${source}.location_id, ${id}, 'CAPTURE', 'payment_intent', ${source}.id, ${source}.id, null, ${source}.external_reference_id, now(),
            settings.business_date, settings.business_date, ${source}.currency, ${source}.amount_captured,
            least(${source}.tip, ${source}.amount_captured), ${fee}, ${source}.amount_captured - ${fee},
            ${source}.latest_payment -> 'card' ->> 'brand', ${source}.latest_payment -> 'card' ->> 'lastFour'
       from ${source} cross join lateral (${settingsInForce(`${source}.location_id`, 'now()')}) as settings
      where ${when}
     on conflict do nothing
     returning id
   )`;
}

/**
 * The line of the refund the CTE `source` made (a refund row), taken from
 * the intent the CTE `intent` updated (its `amount_refunded` after the
 * refund; also its currency and reference). The fee given back is the
 * capture line's fee in proportion to what is refunded, counted on the
 * running total so that refunding all of a capture gives back all of its
 * fee, never a cent more.
 */
export function refundLineWrite(name: string, source: string, intent: string): string {
  const id = `@${name}_id::uuid`;
  const share = (refunded: string) => `round(capture.fee * (${refunded}) / nullif(capture.gross, 0)::numeric)::bigint`;
  const feeBack = `(case when settings.refund_returns_fee and capture.id is not null
                          then ${share(`${intent}.amount_refunded`)} - ${share(`${intent}.amount_refunded - ${source}.amount`)} else 0 end)`;
  return `${name} as (
     insert into ledger_lines (${LINE_COLUMNS})
     select ${source}.location_id, ${id}, 'REFUND', 'refund', ${source}.id, ${source}.payment_intent_id, ${source}.id, ${intent}.external_reference_id, now(),
            settings.business_date, capture.original_business_date, ${intent}.currency, -${source}.amount, 0, -${feeBack}, -${source}.amount + ${feeBack},
            capture.card_brand, capture.card_last_four
       from ${source} join ${intent} on true
       cross join lateral (${settingsInForce(`${source}.location_id`, 'now()')}) as settings
       left join ledger_lines capture
         on capture.location_id = ${source}.location_id and capture.source_type = 'payment_intent'
        and capture.source_id = ${source}.payment_intent_id and capture.type = 'CAPTURE'
     on conflict do nothing
     returning id
   )`;
}

/** The reversal of the REFUND line of the refund the CTE `source` settled (a refund row), if it FAILED. */
export function refundFailureLineWrite(name: string, source: string): string {
  const id = `@${name}_id::uuid`;
  return `${name} as (
     insert into ledger_lines (${LINE_COLUMNS})
     select refunded.location_id, ${id}, 'REFUND_FAILURE', 'refund', refunded.source_id, refunded.payment_intent_id, refunded.refund_id,
            refunded.external_reference_id, now(), settings.business_date, refunded.original_business_date, refunded.currency,
            -refunded.gross, 0, -refunded.fee, -refunded.net, refunded.card_brand, refunded.card_last_four
       from ${source}
       join ledger_lines refunded
         on refunded.location_id = ${source}.location_id and refunded.source_type = 'refund' and refunded.source_id = ${source}.id and refunded.type = 'REFUND'
       cross join lateral (${settingsInForce(`${source}.location_id`, 'now()')}) as settings
      where ${source}.status = 'FAILED'
     on conflict do nothing
     returning id
   )`;
}

/**
 * The lines of a dispute's money, written in the statement that moves it
 * (docs/disputes.md): each of `types` once per dispute, from the CTE
 * `source` (a dispute row: its amount, intent, reference, currency and
 * card). A withdrawal takes the amount and the fee in force; a
 * reinstatement gives the amount back, and a fee return the fee its
 * DISPUTE_FEE line took. Each is dated by the capture it is about, as a
 * refund's is.
 */
export function disputeLinesWrite(name: string, source: string, types: readonly DisputeLineType[]): string {
  const id = `@${name}_id::uuid`;
  const takenFee = `(select taken.fee from ledger_lines taken where taken.location_id = ${source}.location_id and taken.source_type = 'dispute'
                       and taken.source_id = ${source}.id and taken.type = 'DISPUTE_FEE')`;
  const money: Record<DisputeLineType, { gross: string; fee: string }> = {
    DISPUTE_WITHDRAWAL: { gross: `-${source}.amount`, fee: '0' },
    DISPUTE_FEE: { gross: '0', fee: 'settings.dispute_fee' },
    DISPUTE_REINSTATEMENT: { gross: `${source}.amount`, fee: '0' },
    DISPUTE_FEE_RETURN: { gross: '0', fee: `-coalesce(${takenFee}, 0)` },
  };
  // One UUIDv7 per statement: each type's line takes it with its own last hex digit, so that they list in the order written.
  const lines = types.map(
    (type, index) => `select '${type}' as type, ${money[type].gross}::bigint as gross, ${money[type].fee}::bigint as fee,
            overlay(${id}::text placing '${index.toString(16)}' from 36)::uuid as id`,
  );
  return `${name} as (
     insert into ledger_lines (${LINE_COLUMNS})
     select ${source}.location_id, line.id, line.type, 'dispute', ${source}.id, ${source}.payment_intent_id, null, ${source}.external_reference_id, now(),
            settings.business_date, coalesce(capture.original_business_date, settings.business_date), ${source}.currency, line.gross, 0, line.fee,
            line.gross - line.fee, ${source}.card_brand, ${source}.card_last_four
       from ${source}
       cross join lateral (${settingsInForce(`${source}.location_id`, 'now()')}) as settings
       cross join lateral (${lines.join(' union all ')}) as line
       left join ledger_lines capture
         on capture.location_id = ${source}.location_id and capture.source_type = 'payment_intent'
        and capture.source_id = ${source}.payment_intent_id and capture.type = 'CAPTURE'
      where line.gross <> 0 or line.fee <> 0
     on conflict do nothing
     returning id
   )`;
}
