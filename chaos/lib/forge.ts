// Credentials an attacker could make: JWTs with no signature, signed with a guessed key, or
// expired (signed with the hub's own key, taken from a real session), and malformed headers.
import jwt from 'jsonwebtoken';

const b64 = (v: object) => Buffer.from(JSON.stringify(v)).toString('base64url');

export function forgedCredentials(realAdminJwt: string, jwtSecret: string): Record<string, string> {
  const claims = jwt.decode(realAdminJwt) as Record<string, unknown> | null;
  if (!claims) throw new Error('the admin session is not a JWT');
  const { iat: _iat, exp: _exp, ...rest } = claims;
  const now = Math.floor(Date.now() / 1000);
  return {
    none: 'Bearer garbage',
    'empty bearer': 'Bearer ',
    'alg none': `Bearer ${b64({ alg: 'none', typ: 'JWT' })}.${b64({ ...rest, exp: now + 3600 })}.`,
    'signed with another key': `Bearer ${jwt.sign({ ...rest }, 'not-the-hub-secret-not-the-hub-secret', { expiresIn: 3600 })}`,
    'expired (the hub key)': `Bearer ${jwt.sign({ ...rest, iat: now - 7200, exp: now - 3600 }, jwtSecret)}`,
    'HS256 with an altered role': `Bearer ${realAdminJwt.split('.')[0]}.${b64({ ...claims, role: 'ADMIN', sub: 1, id: 1 })}.${realAdminJwt.split('.')[2]}`,
    'basic scheme': `Basic ${Buffer.from('admin:admin-password').toString('base64')}`,
    'huge bearer': `Bearer ${'a'.repeat(8_000)}`,
    'token twice': `Bearer ${realAdminJwt} ${realAdminJwt}`,
  };
}
