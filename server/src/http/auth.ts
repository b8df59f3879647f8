import type { Kysely } from 'kysely';
import { findActiveKeyByHash } from '../db/accounts.ts';
import type { DB } from '../db/schema.ts';
import { hashApiKey, KEY_PATTERN } from '../domain/accounts.ts';
import { ApiError } from '../errors.ts';
import type { Auth } from './context.ts';

/**
 * Resolves `Authorization: Bearer <key>` to an account and mode. Only secret keys pass: the
 * specification states publishable keys are refused on review routes and leaves their other
 * capabilities open; until a browser flow needs them, every authenticated route refuses them
 * (docs/decisions.md).
 */
export async function authenticate(db: Kysely<DB>, header: string | undefined): Promise<Auth> {
  if (header === undefined || header.trim() === '') {
    throw new ApiError(401, 'missing_api_key', 'Falta la cabecera Authorization. Envía "Authorization: Bearer <API_KEY>".', 'Authorization');
  }
  const m = /^Bearer\s+(\S+)\s*$/i.exec(header.trim());
  if (!m) {
    throw new ApiError(401, 'invalid_api_key', 'La cabecera Authorization debe tener la forma "Bearer <API_KEY>".', 'Authorization');
  }
  const key = m[1];
  if (!KEY_PATTERN.test(key)) {
    throw new ApiError(401, 'invalid_api_key', 'La clave de API no tiene un formato válido (ck_test_..., ck_live_...).', 'Authorization');
  }
  const found = await findActiveKeyByHash(db, hashApiKey(key));
  if (!found) {
    throw new ApiError(401, 'invalid_api_key', 'La clave de API no existe o ha sido revocada.', 'Authorization');
  }
  if (found.key.kind === 'publishable') {
    throw new ApiError(403, 'publishable_key_not_allowed', 'Las claves publicables (pk_) no pueden usarse en esta ruta; usa una clave secreta desde tu servidor.', 'Authorization');
  }
  return { account: found.account, keyId: found.key.id, kind: found.key.kind, livemode: found.key.livemode };
}
