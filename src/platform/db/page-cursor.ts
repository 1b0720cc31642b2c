import { DomainError } from '../errors/domain-error';

/**
 * The cursor rule of every list: `startingAfter` must be one of the records
 * the caller may list there (`isOne`), or the page would start from nothing
 * the caller knows; `what` names them ("a customer of this location"), in
 * the 400's message as in the list's description (pagingProse).
 */
export async function refuseUnknownCursor(startingAfter: string | undefined, what: string, isOne: (id: string) => Promise<boolean>): Promise<void> {
  if (startingAfter === undefined || (await isOne(startingAfter))) return;
  throw new DomainError('VALIDATION_FAILED', { fieldName: 'startingAfter', message: `Must be the id of ${what}: the last one of the previous page.` });
}
