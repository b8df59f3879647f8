/**
 * Text the service stores must be valid Unicode without NUL: PostgreSQL's `text` refuses U+0000 and its `jsonb`
 * refuses both `\u0000` and a lone UTF-16 surrogate (`\ud800`), so such a string reached the database as a 500. They
 * are refused at the door instead: 422 `invalid_parameter`, `param` naming the value (`metadata.customer`,
 * `items.0.filename`, `type`), nothing stored. What is clean is said by input/clean-strings.ts.
 */
import { ApiError } from '../errors.ts';
import { firstUncleanPath, isCleanString } from '../input/clean-strings.ts';
import type { ParsedBody } from './body.ts';

const refuse = (param: string, what: string): ApiError =>
  new ApiError(422, 'invalid_parameter', `${what} '${param}' contiene un carácter NUL o Unicode no válido (un sustituto UTF-16 suelto).`, param);

/** Refuses a request whose query or body carries an unclean string (JSON bodies are at most 32 levels deep here). */
export function assertCleanRequest(query: URLSearchParams, body: ParsedBody): void {
  for (const [k, v] of query) {
    if (!isCleanString(k)) throw refuse(k.replace(/[\u0000\ud800-\udfff]/g, '\ufffd'), 'El parámetro');
    if (!isCleanString(v)) throw refuse(k, 'El parámetro');
  }
  if (body.kind === 'json') {
    const path = firstUncleanPath(body.value);
    if (path === 'file_url' || path?.endsWith('.file_url')) {
      // Its own code: a URL with a NUL in it is not a valid URL (400 invalid_file_url, as every other bad address).
      throw new ApiError(400, 'invalid_file_url', 'file_url no es válida: contiene un carácter NUL o Unicode no válido.', path);
    }
    if (path !== undefined) throw refuse(path.replace(/[\u0000\ud800-\udfff]/g, '\ufffd'), 'El valor');
  } else if (body.kind === 'multipart') {
    for (const f of body.fields) if (!isCleanString(f.value) || !isCleanString(f.name)) throw refuse(f.name, 'El campo');
    for (const f of body.files) if (!isCleanString(f.filename)) throw refuse(f.field, 'El nombre de archivo del campo');
  }
}
