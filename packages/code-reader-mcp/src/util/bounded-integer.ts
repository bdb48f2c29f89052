import { z } from 'zod';

/**
 * An optional integer argument whose schema declares its lower bound, so a client (and the model) sees
 * the range the server takes. Larger values are clamped to `max` by the tool (clampInteger), not refused,
 * so the schema states no maximum; the description does.
 */
export function boundedInteger(name: string, min: number, max: number, description?: string) {
  const range = `${name} must be an integer from ${min} to ${max} (larger values are clamped to ${max})`;
  const schema = z.number({ error: range }).int({ error: range }).min(min, { error: range }).optional();
  return description ? schema.describe(description) : schema;
}
