// Reading an SSH key pair as an admin pastes it: the public key derived or checked, the fingerprint as
// `ssh-keygen -l` prints it (computed here from the key blob alone), and a 400 naming the field for a key
// that cannot be read, is locked with a passphrase, or does not belong to the other half.
import { createHash, generateKeyPairSync } from 'node:crypto';
import sshpk from 'sshpk';
import { describe, expect, it } from 'vitest';
import { HubError } from '../../../src/errors.js';
import { readKeyMaterial } from '../../../src/services/sshKeyMaterial.js';

const fingerprintOf = (publicLine: string) =>
  `SHA256:${createHash('sha256')
    .update(Buffer.from(publicLine.split(' ')[1]!, 'base64'))
    .digest('base64')
    .replace(/=+$/, '')}`;

function refusal(fn: () => unknown): { status: number; message: string } {
  try {
    fn();
  } catch (err) {
    expect(err).toBeInstanceOf(HubError);
    return { status: (err as HubError).status, message: (err as HubError).message };
  }
  throw new Error('expected a refusal');
}

describe('readKeyMaterial', () => {
  const ed25519 = sshpk.generatePrivateKey('ed25519');
  ed25519.comment = 'ops@bastion';
  const privateKey = ed25519.toString('openssh');
  const publicLine = ed25519.toPublic().toString('ssh');

  it('derives the public key of an OpenSSH private key, without a comment, and its SHA256 fingerprint', () => {
    const material = readKeyMaterial(privateKey);
    expect(material.publicKey).toBe(publicLine.split(' ').slice(0, 2).join(' '));
    expect(material.publicKey).toMatch(/^ssh-ed25519 AAAA[\w+/=]+$/);
    expect(material.fingerprint).toBe(fingerprintOf(publicLine));
  });

  it('keeps a public key given with its private key, comment included', () => {
    expect(readKeyMaterial(privateKey, publicLine)).toEqual({ publicKey: publicLine, fingerprint: fingerprintOf(publicLine) });
  });

  it('reads a PEM (PKCS#1) RSA key as Node writes it', () => {
    const pem = generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey.export({ type: 'pkcs1', format: 'pem' }) as string;
    const material = readKeyMaterial(pem);
    expect(material.publicKey).toMatch(/^ssh-rsa AAAA/);
    expect(material.fingerprint).toBe(fingerprintOf(material.publicKey));
  });

  it('refuses a key locked with a passphrase, text that is no key, and a public key of another pair', () => {
    const locked = ed25519.toString('openssh', { passphrase: 'correct horse' });
    expect(refusal(() => readKeyMaterial(locked))).toEqual({ status: 400, message: 'private_key is protected by a passphrase: store a key without one' });
    expect(refusal(() => readKeyMaterial('-----BEGIN OPENSSH PRIVATE KEY-----\nnope\n-----END OPENSSH PRIVATE KEY-----'))).toEqual({
      status: 400,
      message: 'private_key is not an SSH private key (OpenSSH or PEM)',
    });
    const other = sshpk.generatePrivateKey('ed25519').toPublic().toString('ssh');
    expect(refusal(() => readKeyMaterial(privateKey, other))).toEqual({ status: 400, message: 'public_key does not belong to private_key' });
    expect(refusal(() => readKeyMaterial(privateKey, 'ssh-ed25519'))).toEqual({
      status: 400,
      message: 'public_key is not an SSH public key (such as "ssh-ed25519 AAAA… comment")',
    });
  });
});
