// The connector form's logic, apart from its inputs: the form's values from the hub's view, the
// request body a save sends (only what changed; secrets only when replaced or removed), checks with
// the hub's own field schemas before sending, and carrying unsaved edits over a newer copy after a
// conflict. Pure, so it is tested without a browser.
import {
  connectorFieldsBody,
  CredentialFields,
  formatZodError,
  SecretFields,
  type ConnectorFieldsInput,
  type ConnectorView,
  type SecretField,
} from '@hub/client';

/** What the admin wants done with a secret: nothing, a new value, or removing it. */
export type SecretEdit = { mode: 'keep' } | { mode: 'replace'; value: string } | { mode: 'clear' };

export interface FormValues {
  connector_name: string;
  app_id: string;
  app_secret: SecretEdit;
  verification_token: SecretEdit;
  encrypt_key: SecretEdit;
  allow_dm: boolean;
  allow_group_mention: boolean;
  mention_required: boolean;
  prefix_command: string;
  ignore_bot_messages: boolean;
  /** As typed; a number once checked. */
  rate_limit_per_minute: string;
  /** One id per line (commas and spaces separate too, as the hub reads them). */
  allowed_chat_ids: string;
  user_whitelist: string;
  callback_url: string;
}
export type FieldName = keyof FormValues;
export type FieldErrors = Partial<Record<FieldName, string>>;

export const TEXT_FIELDS = ['connector_name', 'app_id', 'prefix_command', 'callback_url'] as const;
export const BOOLEAN_FIELDS = ['allow_dm', 'allow_group_mention', 'mention_required', 'ignore_bot_messages'] as const;
export const LIST_FIELDS = ['allowed_chat_ids', 'user_whitelist'] as const;
export { SecretFields, type SecretField };

const KEEP: SecretEdit = { mode: 'keep' };

export function formFromView(view: ConnectorView): FormValues {
  return {
    connector_name: view.connector_name,
    app_id: view.app_id,
    app_secret: KEEP,
    verification_token: KEEP,
    encrypt_key: KEEP,
    allow_dm: view.allow_dm,
    allow_group_mention: view.allow_group_mention,
    mention_required: view.mention_required,
    prefix_command: view.prefix_command,
    ignore_bot_messages: view.ignore_bot_messages,
    rate_limit_per_minute: String(view.rate_limit_per_minute),
    allowed_chat_ids: view.allowed_chat_ids.join('\n'),
    user_whitelist: view.user_whitelist.join('\n'),
    callback_url: view.callback_url,
  };
}

export function parseList(text: string): string[] {
  return text.split(/[\s,]+/).filter(Boolean);
}

const hasSecret = (view: ConnectorView, field: SecretField) => view[`has_${field}`];

/** What a save sends: every field that differs from `view` (all of them when creating). */
export function bodyOf(view: ConnectorView, values: FormValues): ConnectorFieldsInput {
  const creating = view.id === 0;
  const body: Record<string, unknown> = {};
  for (const f of TEXT_FIELDS) {
    const value = values[f].trim();
    if (creating || value !== view[f]) body[f] = value;
  }
  for (const f of BOOLEAN_FIELDS) if (creating || values[f] !== view[f]) body[f] = values[f];
  for (const f of LIST_FIELDS) {
    const list = parseList(values[f]);
    if (creating || JSON.stringify(list) !== JSON.stringify(view[f])) body[f] = list;
  }
  const rate = values.rate_limit_per_minute.trim();
  // What is not a number stays text, so the check names the problem instead of sending NaN.
  const parsed = rate !== '' && !Number.isNaN(Number(rate)) ? Number(rate) : rate;
  if (creating || parsed !== view.rate_limit_per_minute) body['rate_limit_per_minute'] = parsed;
  for (const f of SecretFields) {
    const edit = values[f];
    if (edit.mode === 'replace' && edit.value.trim() !== '') body[f] = edit.value.trim();
    else if (edit.mode === 'clear' && hasSecret(view, f)) body[f] = '';
  }
  return body as ConnectorFieldsInput;
}

/** Whether a save of `body` changes what the platform checks (app id or a secret). */
export function changesCredentials(body: ConnectorFieldsInput): boolean {
  return CredentialFields.some((f) => f in body);
}

/**
 * What saving `body` does to the lifecycle: a connector past draft goes back to draft when its
 * credentials change (the hub's machine: UPDATE with changed credentials), and stops if enabled.
 */
export function saveConsequence(view: ConnectorView, body: ConnectorFieldsInput): string | undefined {
  if (view.id === 0 || view.state === 'draft' || !changesCredentials(body)) return undefined;
  const stops =
    view.state === 'enabled'
      ? ' It stops receiving and sending messages until it is verified and enabled again.'
      : ' It must be verified again before it can be enabled.';
  return `Saving changes the credentials, so the connector goes back from ${view.state} to draft.${stops}`;
}

/** Each field checked with the hub's own schema, the message said without the field's wire name. */
export function validate(body: ConnectorFieldsInput): FieldErrors {
  const errors: FieldErrors = {};
  for (const [key, value] of Object.entries(body)) {
    if (key === 'rate_limit_per_minute' && value === '') {
      errors.rate_limit_per_minute = 'Required: a whole number from 1 to 6000.';
      continue;
    }
    const schema = connectorFieldsBody.pick({ [key]: true } as Record<keyof ConnectorFieldsInput, true>);
    const result = schema.safeParse({ [key]: value });
    if (result.success) continue;
    errors[key as FieldName] = readable(key, formatZodError(result.error, { [key]: value }));
  }
  return errors;
}

/** `allowed_chat_ids.2 must be …` → `Item 3 must be …`; `app_id must be …` → `Must be …`. */
function readable(key: string, message: string): string {
  const first = message.split('; ')[0]!;
  const item = new RegExp(`^${key}\\.(\\d+) `).exec(first);
  if (item) return `Item ${Number(item[1]) + 1} ${first.slice(item[0].length)}.`;
  const rest = first.startsWith(`${key} `) ? first.slice(key.length + 1) : first;
  return `${rest.charAt(0).toUpperCase()}${rest.slice(1)}.`;
}

/**
 * After a conflict: the newer copy, with the admin's unsaved edits (what differs from the copy the
 * form started from) carried over on top, so nothing typed is lost.
 */
export function rebase(base: ConnectorView, fresh: ConnectorView, values: FormValues): FormValues {
  const before = formFromView(base);
  const after = formFromView(fresh);
  const out = { ...after } as Record<FieldName, unknown>;
  for (const key of Object.keys(values) as FieldName[]) {
    if (JSON.stringify(values[key]) !== JSON.stringify(before[key])) out[key] = values[key];
  }
  return out as unknown as FormValues;
}

/** Names of the fields a body changes, as the form labels them (for messages). */
export const FIELD_LABELS: Record<FieldName, string> = {
  connector_name: 'Name',
  app_id: 'App ID',
  app_secret: 'App secret',
  verification_token: 'Verification token',
  encrypt_key: 'Encrypt key',
  allow_dm: 'Allow direct messages',
  allow_group_mention: 'Allow group mentions',
  mention_required: 'Mention required in groups',
  prefix_command: 'Prefix command',
  ignore_bot_messages: 'Ignore bot messages',
  rate_limit_per_minute: 'Rate limit per minute',
  allowed_chat_ids: 'Allowed chat IDs',
  user_whitelist: 'User whitelist',
  callback_url: 'Callback URL',
};
