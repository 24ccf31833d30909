// The connector's settings: every field, secrets write-only. Creates the connector when there is
// none (POST), otherwise saves only what changed (PATCH). Says before saving when new credentials
// will send the connector back to draft, and turns "changed by someone else" into a reload that
// keeps the admin's edits.
import { HubRequestError, type ConnectorView } from '@hub/client';
import { useState, type ChangeEvent, type FormEvent, type ReactNode } from 'react';
import { useHub } from '../../app/context';
import { ConfirmDialog } from '../../components/ConfirmDialog';
import { Button, Card, ErrorNote } from '../../components/ui';
import { bodyOf, FIELD_LABELS, saveConsequence, validate, type FieldErrors, type FieldName, type FormValues } from './form';
import { whyNot } from './hints';
import { FieldNotes } from './FieldNotes';
import { SecretInput } from './SecretInput';
import type { ConnectorForm } from './useConnectorForm';

const CONFLICT =
  'Someone else changed the connector meanwhile. The form now shows the latest version with your unsaved changes on top: check them and save again.';

interface Props {
  form: ConnectorForm;
  /** Re-reads the connector (and its log) after a save or a conflict. */
  onChanged(): Promise<void>;
}

export function SettingsForm({ form, onChanged }: Props) {
  const { api, toasts } = useHub();
  const { base, values } = form;
  const creating = base.id === 0;
  const [errors, setErrors] = useState<FieldErrors>({});
  const [saving, setSaving] = useState(false);
  const [confirming, setConfirming] = useState(false);
  const [conflict, setConflict] = useState<string>();
  const [failure, setFailure] = useState<unknown>();
  const body = bodyOf(base, values);
  const consequence = saveConsequence(base, body);
  const dirty = creating || form.changed.length > 0;
  // The hub lists `update` among the allowed actions; a connector that may not change says why.
  const refusal = creating ? undefined : whyNot('update', base);

  function set<K extends FieldName>(field: K, value: FormValues[K]) {
    form.set(field, value);
    if (errors[field]) setErrors(({ [field]: _gone, ...rest }) => rest);
  }

  async function save(confirmed: boolean) {
    const problems = validate(body);
    setErrors(problems);
    const first = Object.keys(problems)[0];
    if (first) {
      document.getElementById(`cx-${first}`)?.focus();
      return;
    }
    if (consequence && !confirmed) return setConfirming(true);
    setConfirming(false);
    setSaving(true);
    setFailure(undefined);
    setConflict(undefined);
    try {
      let saved: ConnectorView;
      if (creating) {
        saved = await api.connector.create(body);
        toasts.success(`Connector "${saved.connector_name}" created, in state ${saved.state}.`);
      } else {
        // The version the form was filled from: a connector changed since answers 409 (below).
        saved = await api.connector.update(base.id, { ...body, version: base.version });
        toasts.success(saved.state !== base.state ? `Settings saved; the connector is back in ${saved.state}.` : 'Settings saved.');
      }
      form.reset(saved);
      await onChanged();
    } catch (err) {
      if (err instanceof HubRequestError && err.status === 409) {
        setConflict(CONFLICT);
        await onChanged();
      } else {
        setFailure(err);
      }
    } finally {
      setSaving(false);
    }
  }

  function submit(e: FormEvent) {
    e.preventDefault();
    void save(false);
  }

  /** What every text input and text area of the form shares. */
  const editable = (field: 'connector_name' | 'app_id' | 'prefix_command' | 'callback_url' | 'allowed_chat_ids' | 'user_whitelist') => ({
    id: `cx-${field}`,
    value: values[field],
    spellCheck: false,
    disabled: saving,
    'aria-describedby': `cx-${field}-help`,
    'aria-invalid': errors[field] ? true : undefined,
    onChange: (e: ChangeEvent<HTMLInputElement | HTMLTextAreaElement>) => set(field, e.target.value),
  });

  const text = (
    field: 'connector_name' | 'app_id' | 'prefix_command' | 'callback_url',
    help: string,
    extra: { placeholder?: string; type?: string; autoComplete?: string } = {},
  ) => (
    <Field id={`cx-${field}`} label={FIELD_LABELS[field]} help={help} error={errors[field]}>
      <input {...editable(field)} type={extra.type ?? 'text'} placeholder={extra.placeholder} autoComplete={extra.autoComplete ?? 'off'} />
    </Field>
  );

  const check = (field: 'allow_dm' | 'allow_group_mention' | 'mention_required' | 'ignore_bot_messages', help: string) => (
    <div className="cx-check">
      <label className="check" htmlFor={`cx-${field}`}>
        <input
          id={`cx-${field}`}
          type="checkbox"
          checked={values[field]}
          disabled={saving}
          aria-describedby={`cx-${field}-help`}
          onChange={(e) => set(field, e.target.checked)}
        />
        {FIELD_LABELS[field]}
      </label>
      <FieldNotes id={`cx-${field}`} help={help} />
    </div>
  );

  const list = (field: 'allowed_chat_ids' | 'user_whitelist', help: string, placeholder: string) => (
    <Field id={`cx-${field}`} label={FIELD_LABELS[field]} help={help} error={errors[field]}>
      <textarea {...editable(field)} rows={3} placeholder={placeholder} />
    </Field>
  );

  const secret = (field: 'app_secret' | 'verification_token' | 'encrypt_key', help: string, removable: boolean) => (
    <SecretInput
      id={`cx-${field}`}
      label={FIELD_LABELS[field]}
      help={help}
      isSet={base[`has_${field}`]}
      removable={removable}
      edit={values[field]}
      error={errors[field]}
      disabled={saving}
      onChange={(edit) => set(field, edit)}
    />
  );

  return (
    <Card title={creating ? 'New connector' : 'Settings'} className="cx-settings">
      <form onSubmit={submit} noValidate aria-label="Connector settings">
        {creating ? (
          <p className="notice">
            No connector exists yet. Fill in the app's credentials from the platform's developer console and create it; it starts as a draft.
          </p>
        ) : null}
        <fieldset>
          <legend>Credentials</legend>
          {text('connector_name', 'Shown here and in the log.')}
          {text('app_id', "The app's ID in the platform's developer console: cli_ and 16 hexadecimal digits.", { placeholder: 'cli_…' })}
          {secret('app_secret', 'Needed to verify and to connect.', false)}
          {secret('verification_token', 'Checked on the events the platform sends, when set.', true)}
          {secret('encrypt_key', 'Needed only when the app encrypts its events.', true)}
        </fieldset>
        <fieldset>
          <legend>Which messages reach Butler</legend>
          {check('allow_dm', 'Direct messages to the bot are passed on.')}
          {check('allow_group_mention', 'Group messages are passed on.')}
          {check('mention_required', 'In groups, only messages that mention the bot.')}
          {check('ignore_bot_messages', 'Messages sent by other bots are dropped.')}
          {text('prefix_command', 'Only messages starting with this are passed on, without it. Empty passes every message.', { placeholder: 'e.g. /hub' })}
          {list('allowed_chat_ids', 'One per line. Empty allows every chat.', 'oc_…')}
          {list('user_whitelist', 'Platform user IDs (open_id, user_id or union_id), one per line. Empty allows everyone.', 'ou_…')}
        </fieldset>
        <fieldset>
          <legend>Delivery</legend>
          <Field
            id="cx-rate_limit_per_minute"
            label={FIELD_LABELS.rate_limit_per_minute}
            help="Most answers sent to the platform per minute (1–6000)."
            error={errors.rate_limit_per_minute}
          >
            <input
              id="cx-rate_limit_per_minute"
              type="number"
              inputMode="numeric"
              min={1}
              max={6000}
              step={1}
              value={values.rate_limit_per_minute}
              disabled={saving}
              aria-describedby="cx-rate_limit_per_minute-help"
              aria-invalid={errors.rate_limit_per_minute ? true : undefined}
              onChange={(e) => set('rate_limit_per_minute', e.target.value)}
            />
          </Field>
          {text(
            'callback_url',
            'The event callback address configured for the app on the platform, kept for reference (the hub receives events over its long connection).',
            {
              type: 'url',
              placeholder: 'https://…',
            },
          )}
        </fieldset>

        {consequence ? (
          <p className="cx-warning" role="note" data-testid="credentials-warning">
            {consequence}
          </p>
        ) : null}
        {conflict ? (
          <div className="cx-conflict" role="alert">
            {conflict}
          </div>
        ) : null}
        <ErrorNote error={failure} />
        <div className="cx-form-actions">
          {!creating ? (
            <span className="muted cx-changed" aria-live="polite">
              {form.changed.length > 0 ? `Unsaved: ${form.changed.map((f) => FIELD_LABELS[f]).join(', ')}` : 'No unsaved changes'}
            </span>
          ) : null}
          {!creating && form.changed.length > 0 ? (
            <Button disabled={saving} onClick={() => (form.reset(base), setErrors({}), setConflict(undefined))}>
              Discard changes
            </Button>
          ) : null}
          {refusal ? (
            <small id="cx-why-update" className="cx-why">
              {refusal}
            </small>
          ) : null}
          <Button
            type="submit"
            variant="primary"
            busy={saving}
            disabled={!dirty || refusal !== undefined}
            aria-describedby={refusal ? 'cx-why-update' : undefined}
          >
            {creating ? 'Create connector' : 'Save changes'}
          </Button>
        </div>
      </form>
      <ConfirmDialog
        open={confirming}
        title="Send the connector back to draft?"
        confirmLabel="Save and go back to draft"
        danger={base.state === 'enabled'}
        busy={saving}
        onConfirm={() => void save(true)}
        onCancel={() => setConfirming(false)}
      >
        <p>{consequence}</p>
        <p className="muted">Changed: {form.changed.map((f) => FIELD_LABELS[f]).join(', ')}</p>
      </ConfirmDialog>
    </Card>
  );
}

function Field({ id, label, help, error, children }: { id: string; label: string; help: string; error?: string; children: ReactNode }) {
  return (
    <div className="cx-field">
      <label htmlFor={id}>{label}</label>
      {children}
      <FieldNotes id={id} help={help} error={error} />
    </div>
  );
}
