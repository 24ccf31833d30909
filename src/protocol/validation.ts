// Turns zod issues into the one readable sentence a client gets in `{"error": ...}`.
// Messages name the field (`username is required`, `limit must be at most 200`). Given the schema, a
// required field that is missing, null or blank reads `<field> is required` (wire.md §1), whatever
// check it failed; an optional one given blank says what is wrong with the value.
import * as z from 'zod';

type Issue = z.core.$ZodIssue;

function valueAt(input: unknown, path: readonly PropertyKey[]): unknown {
  let current: unknown = input;
  for (const key of path) {
    if (current === null || typeof current !== 'object') return undefined;
    current = (current as Record<PropertyKey, unknown>)[key];
  }
  return current;
}

/** The object schema under pipes (transforms, preprocessing), where field schemas are found. */
function objectOf(schema: unknown): z.ZodObject | undefined {
  let current = schema;
  for (;;) {
    if (current instanceof z.ZodObject) return current;
    if (!(current instanceof z.ZodPipe)) return undefined;
    current = current.in instanceof z.ZodTransform ? current.out : current.in;
  }
}

/** Whether the field at `path` must be given: its schema refuses a missing value. Unknown: undefined. */
function isRequired(schema: z.ZodType, path: readonly PropertyKey[]): boolean | undefined {
  let current: z.ZodType | undefined = schema;
  for (const key of path) {
    const object = objectOf(current);
    current = object && typeof key === 'string' ? (object.shape[key] as z.ZodType | undefined) : undefined;
    if (!current) return undefined;
  }
  return !current.safeParse(undefined).success;
}

const isBlank = (value: unknown) => value === undefined || value === null || (typeof value === 'string' && value.trim() === '');

function describeIssue(issue: Issue, input: unknown, schema: z.ZodType | undefined): string {
  const field = issue.path.length > 0 ? issue.path.map(String).join('.') : 'request body';
  if (schema && issue.path.length > 0 && isBlank(valueAt(input, issue.path)) && isRequired(schema, issue.path)) return `${field} is required`;
  switch (issue.code) {
    case 'invalid_type': {
      const value = valueAt(input, issue.path);
      if (issue.path.length === 0 && (value === undefined || value === null)) return 'request body must be a JSON object';
      // null for a field that may be left out is a wrong value, not a missing one.
      if (value === null && schema && isRequired(schema, issue.path) === false) return `${field} must be ${article(issue.expected)}`;
      if (value === undefined || value === null) return `${field} is required`;
      if (issue.expected === 'int') return `${field} must be an integer`;
      if (issue.expected === 'number') return `${field} must be a number`;
      if (issue.expected === 'object') return `${field} must be a JSON object`;
      return `${field} must be ${article(issue.expected)}`;
    }
    case 'too_small': {
      if (issue.origin === 'string') {
        return Number(issue.minimum) <= 1 ? `${field} must not be empty` : `${field} must be at least ${issue.minimum} characters`;
      }
      if (issue.origin === 'array') return `${field} must have at least ${issue.minimum} items`;
      return issue.inclusive === false ? `${field} must be greater than ${issue.minimum}` : `${field} must be at least ${issue.minimum}`;
    }
    case 'too_big': {
      if (issue.origin === 'string') return `${field} must be at most ${issue.maximum} characters`;
      if (issue.origin === 'array') return `${field} must have at most ${issue.maximum} items`;
      return issue.inclusive === false ? `${field} must be less than ${issue.maximum}` : `${field} must be at most ${issue.maximum}`;
    }
    case 'invalid_value':
      if (issue.path.length > 0 && valueAt(input, issue.path) === undefined) return `${field} is required`;
      return `${field} must be one of ${issue.values.map(String).join(', ')}`;
    case 'invalid_format':
      // A pattern with its own message says what it wants better than "a valid regex".
      return issue.message && !issue.message.startsWith('Invalid') ? `${field} ${issue.message}` : `${field} must be a valid ${issue.format}`;
    case 'not_multiple_of':
      return `${field} must be a multiple of ${issue.divisor}`;
    case 'invalid_union': {
      // A discriminated union whose tag matched no option names the options it knows.
      const options = (issue as { options?: unknown[] }).options;
      if (options && options.length > 0) {
        if (valueAt(input, issue.path) === undefined) return `${field} is required`;
        return `${field} must be one of ${options.map(String).join(', ')}`;
      }
      return `${field} is not valid`;
    }
    case 'unrecognized_keys':
      return `unknown field${issue.keys.length > 1 ? 's' : ''}: ${issue.keys.map((k) => (issue.path.length > 0 ? `${field}.${k}` : k)).join(', ')}`;
    default:
      return issue.message && !issue.message.startsWith('Invalid') ? `${field} ${issue.message}` : `${field} is not valid`;
  }
}

function article(expected: string): string {
  if (expected === 'int') return 'an integer';
  return /^[aeiou]/.test(expected) ? `an ${expected}` : `a ${expected}`;
}

/** One readable sentence per distinct problem, in the order zod found them; `schema` tells required fields apart. */
export function zodIssueMessages(error: z.ZodError, input: unknown, schema?: z.ZodType): string[] {
  return [...new Set(error.issues.map((issue) => describeIssue(issue, input, schema)))];
}

/** The first few problems, joined; the first one is the one a client most needs to fix. */
export function formatZodError(error: z.ZodError, input: unknown, schema?: z.ZodType): string {
  return zodIssueMessages(error, input, schema).slice(0, 3).join('; ');
}
