import type { z } from 'zod';
import { DomainError, type FieldProblem } from '../errors/domain-error';
import { findCardNumberField } from './card-number';
import { unknownFieldMessage } from './unknown-fields';
// The service's own messages for zod's defaults, installed before any parse.
import './messages';

/**
 * Parses one part of a request (body, path parameters, query) with its schema.
 * Refuses a full card number anywhere in it first, naming the field but never
 * echoing the value, then turns zod's issues into field problems.
 */
export function parseInput<Schema extends z.ZodType>(schema: Schema, input: unknown): z.output<Schema> {
  const cardField = findCardNumberField(input);
  if (cardField !== undefined) {
    throw new DomainError('CARD_NUMBER_REJECTED', cardField === '' ? {} : { fieldName: cardField });
  }
  const result = schema.safeParse(input);
  if (result.success) return result.data;
  const problems: FieldProblem[] = result.error.issues.flatMap((issue) =>
    // One problem per unknown field, each named, rather than one for their object.
    issue.code === 'unrecognized_keys'
      ? issue.keys.map((key) => ({ fieldName: [...issue.path, key].map(String).join('.'), message: unknownFieldMessage(schema, issue.path, key) }))
      : [{ fieldName: issue.path.map(String).join('.'), message: issue.message }],
  );
  const named = problems.filter((problem) => problem.fieldName !== '');
  if (named.length === 0) {
    throw new DomainError('BODY_REQUIRED', { message: problems[0]?.message ?? 'The request body must be a JSON object.' });
  }
  throw new DomainError('VALIDATION_FAILED', { problems: named });
}
