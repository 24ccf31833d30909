// The SSRF guard of A2A webhooks: which addresses count as internal, which URLs are refused when
// private addresses are not allowed, and the lookup that checks every address a name resolves to.
import { describe, expect, it } from 'vitest';
import { checkWebhookUrl, guardedLookup, isInternal } from '../../../src/a2a/webhookGuard.js';

describe('webhook guard', () => {
  it.each([
    '127.0.0.1',
    '10.1.2.3',
    '172.16.0.1',
    '192.168.1.1',
    '169.254.169.254',
    '100.64.0.1',
    '0.0.0.0',
    '::1',
    'fd00::1',
    'fe80::1',
    '::ffff:10.0.0.1',
    '::ffff:127.0.0.1',
  ])('%s is internal', (address) => expect(isInternal(address)).toBe(true));

  it.each(['93.184.216.34', '8.8.8.8', '2606:4700:4700::1111', '172.32.0.1'])('%s is public', (address) => expect(isInternal(address)).toBe(false));

  it('refuses internal hosts, other schemes and credentials in the URL; allows them all when private addresses are allowed', () => {
    expect(() => checkWebhookUrl('http://10.0.0.5/hook', false)).toThrow(
      "the webhook's address 10.0.0.5 is a private or internal address; set A2A_ALLOW_PRIVATE_NETWORK=true to allow it",
    );
    expect(() => checkWebhookUrl('http://[::1]:8080/hook', false)).toThrow(/::1/);
    expect(() => checkWebhookUrl('http://localhost/hook', false)).toThrow(/localhost/);
    expect(() => checkWebhookUrl('file:///etc/passwd', false)).toThrow(/http or https/);
    expect(() => checkWebhookUrl('https://user:pw@example.com/hook', false)).toThrow(/credentials/);
    expect(() => checkWebhookUrl('not a url', false)).toThrow(/not a URL/);
    expect(checkWebhookUrl('https://hooks.example.com/a2a', false).host).toBe('hooks.example.com');
    expect(checkWebhookUrl('http://10.0.0.5/hook', true).host).toBe('10.0.0.5');
  });

  it('fails a lookup whose name resolves to an internal address, and passes it when allowed', async () => {
    const resolve = (allow: boolean) =>
      new Promise<string>((ok, fail) => guardedLookup(allow)('localhost', {}, (err, address) => (err ? fail(err) : ok(String(address)))));
    await expect(resolve(false)).rejects.toThrow(/is a private or internal address; set A2A_ALLOW_PRIVATE_NETWORK=true/);
    await expect(resolve(true)).resolves.toMatch(/^(127\.0\.0\.1|::1)$/);
  });
});
