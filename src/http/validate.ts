// Parses request parts with their zod schemas; a failure is a 400 naming the field.
import type { z } from 'zod';
import { Errors } from '../errors.js';
import { formatZodError } from '../protocol/validation.js';

export function parseWith<S extends z.ZodType>(schema: S, value: unknown): z.output<S> {
  const result = schema.safeParse(value);
  if (!result.success) throw Errors.badRequest(formatZodError(result.error, value, schema));
  return result.data;
}

/** A JSON body must be an object; `undefined` (no body) parses as `{}` so missing fields are named. */
export function parseBody<S extends z.ZodType>(schema: S, body: unknown): z.output<S> {
  if (body !== undefined && (body === null || typeof body !== 'object' || Array.isArray(body))) {
    throw Errors.badRequest('request body must be a JSON object');
  }
  return parseWith(schema, body ?? {});
}
