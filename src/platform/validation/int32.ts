import { z } from 'zod';

/**
 * A 32-bit integer, as the spec types counts and codes (`integer (int32)`),
 * with the bounds the value really has: a generator or a mock server reading
 * the document then makes 0 to 50, not -2147483648.
 */
export const int32 = (minimum: number, maximum: number) => z.int().min(minimum).max(maximum).meta({ format: 'int32' });
