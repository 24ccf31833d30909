// Reads an SSH key pair as an admin pastes it (sshpk, which reads OpenSSH and PEM keys of every
// common type): the public key (derived from the private key when none is given, checked against it
// when one is) and its SHA256 fingerprint, the one the ops panels show instead of the key itself.
import sshpk from 'sshpk';
import { Errors } from '../errors.js';

export interface KeyMaterial {
  /** `<type> <base64>` (and the comment given with it, if any). */
  publicKey: string;
  /** `SHA256:…`, as `ssh-keygen -l` prints it. */
  fingerprint: string;
}

function readPrivate(privateKey: string): sshpk.PrivateKey {
  try {
    return sshpk.parsePrivateKey(privateKey, 'auto');
  } catch (err) {
    // A key locked with a passphrase is of no use to anything that would connect with it.
    if ((err as Error).name === 'KeyEncryptedError') throw Errors.badRequest('private_key is protected by a passphrase: store a key without one');
    throw Errors.badRequest('private_key is not an SSH private key (OpenSSH or PEM)');
  }
}

function readPublic(publicKey: string): sshpk.Key {
  try {
    return sshpk.parseKey(publicKey, 'ssh');
  } catch {
    throw Errors.badRequest('public_key is not an SSH public key (such as "ssh-ed25519 AAAA… comment")');
  }
}

/** The key pair's public half and fingerprint; 400 naming the field when either part is wrong. */
export function readKeyMaterial(privateKey: string, publicKey?: string): KeyMaterial {
  const derived = readPrivate(privateKey).toPublic();
  const fingerprint = derived.fingerprint('sha256').toString();
  if (!publicKey) return { publicKey: derived.toString('ssh').split(' ').slice(0, 2).join(' '), fingerprint };
  if (readPublic(publicKey).fingerprint('sha256').toString() !== fingerprint) throw Errors.badRequest('public_key does not belong to private_key');
  return { publicKey, fingerprint };
}
