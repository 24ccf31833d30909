// Connector rows ↔ the connector as the hub uses it (secrets decrypted, lists parsed) ↔ the masked
// view clients get. Secrets leave this module only masked.
import { allowedActions, type ConnectorState } from './machine.js';
import { maskSecret, SecretFields, type ConnectorFields, type ConnectorFieldsInput, type ConnectorView, type SecretField } from '../protocol/connector.js';
import type { ConnectorPatch } from '../store/repositories/connectors.js';
import type { ConnectorRow, NewConnector } from '../store/schema.js';
import type { SecretBox } from '../auth/secrets.js';

/** A connector's settings, secrets in the clear (they never leave this module so). */
export type ConnectorSettings = ConnectorFields;

export interface ConnectorConfig extends ConnectorSettings {
  id: number;
  state: ConnectorState;
  version: number;
  is_current: boolean;
  last_verified_at: string | null;
  created_at: string;
  updated_at: string;
}

export const DEFAULT_SETTINGS: Readonly<ConnectorSettings> = Object.freeze({
  connector_name: 'Feishu',
  app_id: '',
  app_secret: '',
  verification_token: '',
  encrypt_key: '',
  allow_dm: true,
  allow_group_mention: true,
  mention_required: true,
  prefix_command: '',
  ignore_bot_messages: true,
  rate_limit_per_minute: 20,
  allowed_chat_ids: [],
  user_whitelist: [],
  callback_url: '',
});

const cipherColumn = (field: SecretField) => `${field}_cipher` as const;

function parseList(text: string): string[] {
  try {
    const value = JSON.parse(text) as unknown;
    return Array.isArray(value) ? value.filter((v): v is string => typeof v === 'string') : [];
  } catch {
    return [];
  }
}

export function createConnectorCodec(box: SecretBox, onUnreadableSecret: (connectorId: number, field: SecretField) => void) {
  function open(row: ConnectorRow, field: SecretField): string {
    const sealed = row[cipherColumn(field)];
    if (sealed === null) return '';
    try {
      return box.open(sealed);
    } catch {
      // Encrypted under another key (TOKEN_SECRET or JWT_SECRET changed): unusable until re-entered.
      onUnreadableSecret(row.id, field);
      return '';
    }
  }

  return {
    decode(row: ConnectorRow): ConnectorConfig {
      return {
        id: row.id,
        connector_name: row.connector_name,
        app_id: row.app_id,
        app_secret: open(row, 'app_secret'),
        verification_token: open(row, 'verification_token'),
        encrypt_key: open(row, 'encrypt_key'),
        allow_dm: row.allow_dm === 1,
        allow_group_mention: row.allow_group_mention === 1,
        mention_required: row.mention_required === 1,
        prefix_command: row.prefix_command,
        ignore_bot_messages: row.ignore_bot_messages === 1,
        rate_limit_per_minute: row.rate_limit_per_minute,
        allowed_chat_ids: parseList(row.allowed_chat_ids),
        user_whitelist: parseList(row.user_whitelist),
        callback_url: row.callback_url,
        state: row.state as ConnectorState,
        version: row.version,
        is_current: row.is_current === 1,
        last_verified_at: row.last_verified_at,
        created_at: row.created_at,
        updated_at: row.updated_at,
      };
    },

    /** The row of a new draft with these settings. */
    newRow(settings: ConnectorSettings, now: string): Omit<NewConnector, 'is_current' | 'version'> {
      const seal = (secret: string) => (secret === '' ? null : box.seal(secret));
      return {
        connector_name: settings.connector_name,
        app_id: settings.app_id,
        app_secret_cipher: seal(settings.app_secret),
        verification_token_cipher: seal(settings.verification_token),
        encrypt_key_cipher: seal(settings.encrypt_key),
        allow_dm: settings.allow_dm ? 1 : 0,
        allow_group_mention: settings.allow_group_mention ? 1 : 0,
        mention_required: settings.mention_required ? 1 : 0,
        prefix_command: settings.prefix_command,
        ignore_bot_messages: settings.ignore_bot_messages ? 1 : 0,
        rate_limit_per_minute: settings.rate_limit_per_minute,
        allowed_chat_ids: JSON.stringify(settings.allowed_chat_ids),
        user_whitelist: JSON.stringify(settings.user_whitelist),
        callback_url: settings.callback_url,
        state: 'draft',
        last_verified_at: null,
        created_at: now,
        updated_at: now,
      };
    },

    /** Columns for the given settings (secrets sealed; an empty secret is stored as none). */
    encode(settings: Partial<ConnectorSettings>): Omit<ConnectorPatch, 'updated_at'> {
      const out: Omit<ConnectorPatch, 'updated_at'> = {};
      for (const [key, value] of Object.entries(settings) as Array<[keyof ConnectorSettings, ConnectorSettings[keyof ConnectorSettings]]>) {
        if ((SecretFields as readonly string[]).includes(key)) {
          out[cipherColumn(key as SecretField)] = value === '' ? null : box.seal(value as string);
        } else if (Array.isArray(value)) {
          (out as Record<string, unknown>)[key] = JSON.stringify(value);
        } else if (typeof value === 'boolean') {
          (out as Record<string, unknown>)[key] = value ? 1 : 0;
        } else {
          (out as Record<string, unknown>)[key] = value;
        }
      }
      return out;
    },
  };
}
export type ConnectorCodec = ReturnType<typeof createConnectorCodec>;

/**
 * The fields of `input` that differ from `current`. A secret sent back exactly as it was shown
 * (masked) means "unchanged": dashboards post the whole form.
 */
export function changedSettings(current: ConnectorSettings, input: ConnectorFieldsInput): Partial<ConnectorSettings> {
  const changed: Partial<ConnectorSettings> = {};
  for (const [key, value] of Object.entries(input) as Array<[keyof ConnectorSettings, ConnectorSettings[keyof ConnectorSettings] | undefined]>) {
    if (value === undefined) continue;
    const before = current[key];
    if ((SecretFields as readonly string[]).includes(key) && before !== '' && value === maskSecret(before as string)) continue;
    if (JSON.stringify(before) === JSON.stringify(value)) continue;
    (changed as Record<string, unknown>)[key] = value;
  }
  return changed;
}

export function toConnectorView(c: ConnectorConfig | undefined, connected: boolean): ConnectorView {
  const s: ConnectorSettings = c ?? DEFAULT_SETTINGS;
  const state: ConnectorState = c?.state ?? 'draft';
  return {
    id: c?.id ?? 0,
    connector_name: s.connector_name,
    app_id: s.app_id,
    app_secret: maskSecret(s.app_secret),
    has_app_secret: s.app_secret !== '',
    verification_token: maskSecret(s.verification_token),
    has_verification_token: s.verification_token !== '',
    encrypt_key: maskSecret(s.encrypt_key),
    has_encrypt_key: s.encrypt_key !== '',
    allow_dm: s.allow_dm,
    allow_group_mention: s.allow_group_mention,
    mention_required: s.mention_required,
    prefix_command: s.prefix_command,
    ignore_bot_messages: s.ignore_bot_messages,
    rate_limit_per_minute: s.rate_limit_per_minute,
    allowed_chat_ids: [...s.allowed_chat_ids],
    user_whitelist: [...s.user_whitelist],
    callback_url: s.callback_url,
    state,
    enabled: state === 'enabled',
    callback_verified: c ? c.last_verified_at !== null && state !== 'draft' : false,
    status: connected ? 'connected' : 'not_connected',
    last_verified_at: c?.last_verified_at ?? null,
    created_at: c?.created_at ?? null,
    updated_at: c?.updated_at ?? null,
    version: c?.version ?? 0,
    // With no connector yet, the only way forward is POST.
    allowed_actions: c ? allowedActions(state) : [],
    is_current: c?.is_current ?? false,
  };
}
