import type { Auth, Services } from '../../context.ts';
import { ApiError } from '../../errors.ts';
import { getTemplateForRequest, type Template } from '../templates.ts';

export type { Template };

/**
 * The template a dossier names (422 `template_not_found` at `template` for an unknown or other account's id); with
 * `optional`, null instead: a template deleted after the dossier was made (its requirements were copied into the
 * dossier; its analyze options no longer apply to documents added afterwards).
 */
export async function templateOf(s: Services, auth: Auth, id: string, opts: { optional?: boolean } = {}): Promise<Template | null> {
  try {
    return await getTemplateForRequest(s, auth, id, 'template');
  } catch (err) {
    if (opts.optional && err instanceof ApiError && err.code === 'template_not_found') return null;
    throw err;
  }
}
