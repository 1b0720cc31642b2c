import { z } from 'zod';

/** A 32-bit integer, as the spec types counts and codes (`integer (int32)`). */
export const int32 = () => z.int32().meta({ format: 'int32' });
