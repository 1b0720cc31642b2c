import { MOVEMENT_LINE_TYPES, type LedgerLineType } from './ledger-line-types';
import type { Batch } from './settlement.schemas';

/** A group of a batch's lines of one type: how many, and their money summed. */
export interface LinesOfType {
  type: LedgerLineType;
  count: number;
  gross: number;
  tip: number;
  fee: number;
  net: number;
}

/** A group as a driver answers it (bigint sums as text on pg), its count and sums as numbers. */
export function asNumbers<Group extends LinesOfType>(group: Group): Group {
  return { ...group, count: Number(group.count), gross: Number(group.gross), tip: Number(group.tip), fee: Number(group.fee), net: Number(group.net) };
}

/**
 * A batch's counts and totals from its lines (docs/settlement.md, Batches):
 * `net` sums the movements (captures, refunds, failures, disputes), `carriedIn` the
 * CARRY_FORWARD_IN lines, and `payout` and `carriedOut` what the close made
 * of them: payout + carriedOut − carriedIn = net.
 */
export function totalsOf(groups: readonly LinesOfType[]): Pick<Batch, 'counts' | 'totals'> {
  const of = (type: LedgerLineType) => groups.filter((group) => group.type === type);
  const sum = (type: LedgerLineType, field: 'count' | 'gross' | 'tip' | 'fee' | 'net') => of(type).reduce((total, group) => total + group[field], 0);
  return {
    counts: {
      captures: sum('CAPTURE', 'count'),
      refunds: sum('REFUND', 'count'),
      refundFailures: sum('REFUND_FAILURE', 'count'),
      disputes: sum('DISPUTE_WITHDRAWAL', 'count'),
      lines: groups.reduce((total, group) => total + group.count, 0),
    },
    totals: {
      gross: sum('CAPTURE', 'gross'),
      tips: sum('CAPTURE', 'tip'),
      refunds: sum('REFUND', 'gross'),
      refundFailures: sum('REFUND_FAILURE', 'gross'),
      disputes: sum('DISPUTE_WITHDRAWAL', 'gross') + sum('DISPUTE_REINSTATEMENT', 'gross'),
      fees: MOVEMENT_LINE_TYPES.reduce((total, type) => total + sum(type, 'fee'), 0),
      net: MOVEMENT_LINE_TYPES.reduce((total, type) => total + sum(type, 'net'), 0),
      carriedIn: sum('CARRY_FORWARD_IN', 'net'),
      carriedOut: -sum('CARRY_FORWARD_OUT', 'net'),
      payout: -sum('PAYOUT', 'net'),
    },
  };
}
