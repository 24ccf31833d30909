// The connector page's pure parts: the settings form's body (changed fields only, secrets only when
// replaced or removed), its checks with the hub's schemas, the warning before credentials send the
// connector back to draft, edits carried over a newer copy after a conflict, the log's paging, and
// the reasons a button is off.
import { describe, expect, it } from 'vitest';
import type { ConnectorView } from '../../../src/protocol/connector.js';
import {
  bodyOf,
  changesCredentials,
  formFromView,
  parseList,
  rebase,
  saveConsequence,
  validate,
  type FormValues,
} from '../../../web/src/pages/connector/form.js';
import { whyNot } from '../../../web/src/pages/connector/hints.js';
import { appendOlder, mergeNewest } from '../../../web/src/pages/connector/logPages.js';

function view(over: Partial<ConnectorView> = {}): ConnectorView {
  return {
    id: 7,
    connector_name: 'Ops',
    app_id: 'cli_1',
    app_secret: 'ab****yz',
    has_app_secret: true,
    verification_token: '',
    has_verification_token: false,
    encrypt_key: 'en****ey',
    has_encrypt_key: true,
    allow_dm: true,
    allow_group_mention: true,
    mention_required: true,
    prefix_command: '',
    ignore_bot_messages: true,
    rate_limit_per_minute: 20,
    allowed_chat_ids: ['oc_a', 'oc_b'],
    user_whitelist: [],
    callback_url: '',
    state: 'verified',
    enabled: false,
    callback_verified: true,
    status: 'not_connected',
    last_verified_at: '2025-01-01T00:00:00.000Z',
    created_at: '2025-01-01T00:00:00.000Z',
    updated_at: '2025-01-01T00:00:00.000Z',
    version: 3,
    allowed_actions: ['verify', 'update', 'enable', 'test_message'],
    is_current: true,
    ...over,
  };
}

const edit = (v: ConnectorView, change: Partial<FormValues>): FormValues => ({ ...formFromView(v), ...change });

describe('settings form body', () => {
  it('sends nothing for an untouched form, and never a masked secret', () => {
    const v = view();
    expect(bodyOf(v, formFromView(v))).toEqual({});
    expect(JSON.stringify(formFromView(v))).not.toContain('****');
  });

  it('sends only the fields that changed, trimmed and typed', () => {
    const v = view();
    const body = bodyOf(
      v,
      edit(v, { connector_name: '  Ops 2 ', allow_dm: false, rate_limit_per_minute: '30', allowed_chat_ids: 'oc_a\n oc_b, oc_c\n\n', user_whitelist: '' }),
    );
    expect(body).toEqual({ connector_name: 'Ops 2', allow_dm: false, rate_limit_per_minute: 30, allowed_chat_ids: ['oc_a', 'oc_b', 'oc_c'] });
    // The same list written differently is no change.
    expect(bodyOf(v, edit(v, { allowed_chat_ids: 'oc_a, oc_b' }))).toEqual({});
  });

  it('treats an empty secret input as "keep", sends a replaced one, and removes only a set one', () => {
    const v = view();
    expect(bodyOf(v, edit(v, { app_secret: { mode: 'replace', value: '   ' } }))).toEqual({});
    expect(bodyOf(v, edit(v, { app_secret: { mode: 'replace', value: ' new-secret ' } }))).toEqual({ app_secret: 'new-secret' });
    expect(bodyOf(v, edit(v, { encrypt_key: { mode: 'clear' } }))).toEqual({ encrypt_key: '' });
    expect(bodyOf(v, edit(v, { verification_token: { mode: 'clear' } }))).toEqual({});
  });

  it('sends every field when creating (id 0), secrets only when typed', () => {
    const defaults = view({
      id: 0,
      app_id: '',
      app_secret: '',
      has_app_secret: false,
      encrypt_key: '',
      has_encrypt_key: false,
      allowed_chat_ids: [],
      state: 'draft',
      allowed_actions: [],
    });
    const body = bodyOf(defaults, edit(defaults, { app_id: 'cli_x', app_secret: { mode: 'replace', value: 's3cret-value' } }));
    expect(body).toMatchObject({
      connector_name: 'Ops',
      app_id: 'cli_x',
      app_secret: 's3cret-value',
      allow_dm: true,
      rate_limit_per_minute: 20,
      allowed_chat_ids: [],
      callback_url: '',
    });
    expect(body).not.toHaveProperty('encrypt_key');
  });

  it('checks fields with the hub schemas, in words without wire names', () => {
    const v = view();
    const errors = (change: Partial<FormValues>) => validate(bodyOf(v, edit(v, change)));
    expect(errors({ rate_limit_per_minute: '0' })).toEqual({ rate_limit_per_minute: 'Must be at least 1.' });
    expect(errors({ rate_limit_per_minute: '2.5' })).toEqual({ rate_limit_per_minute: 'Must be an integer.' });
    expect(errors({ rate_limit_per_minute: 'lots' })).toEqual({ rate_limit_per_minute: 'Must be a number.' });
    expect(errors({ rate_limit_per_minute: '' })).toEqual({ rate_limit_per_minute: 'Required: a whole number from 1 to 6000.' });
    expect(errors({ callback_url: 'not a url' })).toEqual({ callback_url: 'Must be a URL.' });
    expect(errors({ app_id: 'x'.repeat(200) })).toEqual({ app_id: 'Must be at most 128 characters.' });
    expect(errors({ allowed_chat_ids: `oc_a\n${'y'.repeat(200)}` })).toEqual({ allowed_chat_ids: 'Item 2 must be at most 128 characters.' });
    expect(errors({ callback_url: 'https://hub.example/cb', rate_limit_per_minute: '6000' })).toEqual({});
  });

  it('parses lists the way the hub does', () => {
    expect(parseList(' a, b\nc  d,,\n')).toEqual(['a', 'b', 'c', 'd']);
    expect(parseList('')).toEqual([]);
  });
});

describe('saving credentials', () => {
  it('knows which fields are credentials', () => {
    expect(changesCredentials({ connector_name: 'x' })).toBe(false);
    for (const f of ['app_id', 'app_secret', 'verification_token', 'encrypt_key']) expect(changesCredentials({ [f]: 'x' })).toBe(true);
  });

  it('warns before a save sends a verified, enabled or disabled connector back to draft', () => {
    expect(saveConsequence(view({ state: 'verified' }), { app_id: 'cli_2' })).toMatch(/from verified to draft.*verified again/);
    expect(saveConsequence(view({ state: 'enabled' }), { encrypt_key: '' })).toMatch(/from enabled to draft.*stops receiving and sending/);
    expect(saveConsequence(view({ state: 'disabled' }), { app_secret: 'x' })).toMatch(/from disabled to draft/);
    expect(saveConsequence(view({ state: 'draft' }), { app_secret: 'x' })).toBeUndefined();
    expect(saveConsequence(view({ state: 'enabled' }), { connector_name: 'x' })).toBeUndefined();
    expect(saveConsequence(view({ id: 0 }), { app_secret: 'x' })).toBeUndefined();
  });
});

describe('conflict', () => {
  it('shows the newer copy with the unsaved edits on top', () => {
    const base = view();
    const fresh = view({ version: 4, connector_name: 'Renamed elsewhere', prefix_command: '/hub', rate_limit_per_minute: 50 });
    const mine = edit(base, { rate_limit_per_minute: '25', app_secret: { mode: 'replace', value: 'typed' } });
    const merged = rebase(base, fresh, mine);
    expect(merged).toMatchObject({
      connector_name: 'Renamed elsewhere',
      prefix_command: '/hub',
      rate_limit_per_minute: '25',
      app_secret: { mode: 'replace', value: 'typed' },
    });
    // Against the newer copy, the body holds only the admin's own edits.
    expect(bodyOf(fresh, merged)).toEqual({ rate_limit_per_minute: 25, app_secret: 'typed' });
  });

  it('is the newer copy itself when nothing was edited', () => {
    const fresh = view({ version: 9, allow_dm: false });
    expect(rebase(view(), fresh, formFromView(view()))).toEqual(formFromView(fresh));
  });
});

describe('log pages', () => {
  const entry = (id: number) => ({ id: String(id), level: 'INFO', action: 'a', detail: `d${id}`, timestamp: '2025-01-01T00:00:00.000Z' });
  const ids = (list: { items: Array<{ id: string }> }) => list.items.map((e) => Number(e.id));

  it('appends older pages without repeats', () => {
    const list = appendOlder({ items: [entry(9), entry(8)], cursor: 'c1' }, { items: [entry(8), entry(7), entry(6)], cursor: '' });
    expect(ids(list)).toEqual([9, 8, 7, 6]);
    expect(list.cursor).toBe('');
  });

  it('puts new entries on top and keeps what was loaded older', () => {
    const loaded = { items: [entry(9), entry(8), entry(7)], cursor: 'older' };
    const merged = mergeNewest(loaded, { items: [entry(11), entry(10), entry(9)], cursor: 'c' });
    expect(ids(merged)).toEqual([11, 10, 9, 8, 7]);
    expect(merged.cursor).toBe('older');
    expect(mergeNewest(loaded, { items: [entry(9), entry(8)], cursor: 'c' })).toEqual(loaded);
  });

  it('starts over when more was written than a page holds', () => {
    const merged = mergeNewest({ items: [entry(3)], cursor: '' }, { items: [entry(30), entry(29)], cursor: 'next' });
    expect(ids(merged)).toEqual([30, 29]);
    expect(merged.cursor).toBe('next');
  });
});

describe('why a button is off', () => {
  it('explains by state, and says nothing when the action is allowed', () => {
    expect(whyNot('enable', view({ state: 'draft', allowed_actions: ['verify', 'update', 'test_message'] }))).toMatch(/Verify the credentials first/);
    expect(whyNot('enable', view({ state: 'enabled', allowed_actions: ['verify', 'update', 'disable', 'test_message'] }))).toBe('Already enabled.');
    expect(whyNot('disable', view({ state: 'verified' }))).toBe('Only an enabled connector can be disabled.');
    expect(whyNot('disable', view({ state: 'disabled', allowed_actions: ['verify', 'update', 'enable', 'test_message'] }))).toBe('Already disabled.');
    expect(whyNot('verify', view({ id: 0, allowed_actions: [] }))).toMatch(/Create the connector first/);
    expect(whyNot('enable', view())).toBeUndefined();
  });
});
