// One write-only secret: the hub only says whether it is set. Left alone it stays as it is; the
// admin can type a new value in its place, or remove an optional one. Never shown once saved.
import { useRef, useState } from 'react';
import { Badge, Button } from '../../components/ui';
import { FieldNotes } from './FieldNotes';
import type { SecretEdit } from './form';

interface Props {
  id: string;
  label: string;
  help: string;
  /** Whether the hub holds a value now. */
  isSet: boolean;
  /** Optional secrets can be removed; a required one (the app secret) only replaced. */
  removable: boolean;
  edit: SecretEdit;
  error?: string;
  disabled?: boolean;
  onChange(edit: SecretEdit): void;
}

export function SecretInput({ id, label, help, isSet, removable, edit, error, disabled, onChange }: Props) {
  const [shown, setShown] = useState(false);
  const input = useRef<HTMLInputElement>(null);
  const typing = !isSet || edit.mode === 'replace';
  const value = edit.mode === 'replace' ? edit.value : '';
  const helpId = `${id}-help`;
  const status =
    edit.mode === 'clear' ? 'will be removed' : edit.mode === 'replace' && value.trim() !== '' ? (isSet ? 'will be replaced' : 'will be set') : undefined;

  function replace() {
    onChange({ mode: 'replace', value: '' });
    // The input appears in this render; focus it on the next frame.
    requestAnimationFrame(() => input.current?.focus());
  }

  return (
    <div className="cx-field cx-secret" data-field={id}>
      <div className="cx-secret-head">
        <label htmlFor={typing ? id : undefined} id={`${id}-label`}>
          {label}
        </label>
        <Badge tone={isSet ? 'ok' : 'muted'}>{isSet ? 'set' : 'not set'}</Badge>
        {status ? <Badge tone="warn">{status}</Badge> : null}
      </div>
      {typing ? (
        <div className="cx-secret-row">
          <input
            ref={input}
            id={id}
            type={shown ? 'text' : 'password'}
            autoComplete="new-password"
            spellCheck={false}
            value={value}
            disabled={disabled}
            placeholder={isSet ? 'New value' : 'Not set'}
            aria-describedby={helpId}
            aria-invalid={error ? true : undefined}
            onChange={(e) => onChange(e.target.value === '' && !isSet ? { mode: 'keep' } : { mode: 'replace', value: e.target.value })}
          />
          <Button
            className="btn-small"
            onClick={() => setShown((s) => !s)}
            aria-pressed={shown}
            disabled={disabled}
            aria-label={`${shown ? 'Hide' : 'Show'} ${label.toLowerCase()}`}
          >
            {shown ? 'Hide' : 'Show'}
          </Button>
          {isSet ? (
            <Button className="btn-small" onClick={() => onChange({ mode: 'keep' })} disabled={disabled} aria-label={`Keep current ${label.toLowerCase()}`}>
              Keep current
            </Button>
          ) : null}
        </div>
      ) : (
        <div className="cx-secret-row">
          <span className="muted">{edit.mode === 'clear' ? 'Removed when you save.' : 'Stored, never shown.'}</span>
          {edit.mode === 'clear' ? (
            <Button className="btn-small" onClick={() => onChange({ mode: 'keep' })} disabled={disabled} aria-label={`Undo removing ${label.toLowerCase()}`}>
              Undo
            </Button>
          ) : (
            <>
              <Button className="btn-small" onClick={replace} disabled={disabled} aria-label={`Replace ${label.toLowerCase()}`}>
                Replace
              </Button>
              {removable ? (
                <Button className="btn-small" onClick={() => onChange({ mode: 'clear' })} disabled={disabled} aria-label={`Remove ${label.toLowerCase()}`}>
                  Remove
                </Button>
              ) : null}
            </>
          )}
        </div>
      )}
      <FieldNotes id={id} help={typing && isSet ? `${help} Leave empty to keep the current value.` : help} error={error} />
    </div>
  );
}
