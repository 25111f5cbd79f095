import { z } from 'zod';

/**
 * Lenient object: unknown fields are kept (the platform adds fields without notice).
 * Absent and `null` are the same on this platform; `decode()` strips nulls before parsing,
 * so optional fields are simply `T | undefined` in the types.
 */
export const obj = <T extends z.core.$ZodLooseShape>(shape: T) => z.looseObject(shape);

/**
 * An integer id or counter as it arrives from JSON. Ids are safe integers; `body.seq` exceeds 2^53
 * and arrives rounded, so no integer check is made: never rely on the exact value of a seq.
 */
export const int = z.number();

/** Unix time in milliseconds. */
export const timestamp = z.number();
