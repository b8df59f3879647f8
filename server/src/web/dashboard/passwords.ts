// Member passwords: argon2id (@node-rs/argon2, a native binding with prebuilt binaries and no install script) with
// OWASP's parameters (19 MiB, 2 passes, 1 lane). Stored as the PHC string, which carries its own parameters, so they
// can be raised later without breaking existing hashes.
import { hash, verify, type Algorithm } from '@node-rs/argon2';

/** At least 12 characters; at most 256 (a passphrase fits; nothing longer is hashed for anyone who sends it). */
export const PASSWORD_MIN = 12;
export const PASSWORD_MAX = 256;

const OPTIONS = { algorithm: 2 as Algorithm /* Argon2id */, memoryCost: 19_456, timeCost: 2, parallelism: 1 };

export function passwordProblem(password: string): 'too_short' | 'too_long' | null {
  const n = [...password].length;
  if (n < PASSWORD_MIN) return 'too_short';
  if (n > PASSWORD_MAX) return 'too_long';
  return null;
}

export function hashPassword(password: string): Promise<string> {
  return hash(password, OPTIONS);
}

// A hash of nothing anyone knows: an unknown email is checked against it, so that it takes as long as a known one.
let decoy: Promise<string> | null = null;

/** True when `password` matches `stored`; with no stored hash, spends the same time and answers false. */
export async function checkPassword(stored: string | null, password: string): Promise<boolean> {
  if (password.length > PASSWORD_MAX * 4) return false;
  if (!stored) {
    await verify(await (decoy ??= hashPassword('decoy-password-never-used')), password).catch(() => false);
    return false;
  }
  return verify(stored, password).catch(() => false);
}
