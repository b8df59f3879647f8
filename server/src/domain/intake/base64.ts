/**
 * `file_base64` decoding. Tolerant of what clients really send (a `data:` URL prefix, line
 * breaks every 76 characters, the URL-safe alphabet, missing padding) and strict about anything
 * else: Node's own base64 decoder silently skips invalid characters, so the text is validated
 * before it is decoded.
 */
import { Buffer } from 'node:buffer';
import { ApiError } from '../../errors.ts';
import { MAX_FILE_BYTES } from '../../input/limits.ts';

const PARAM = 'file_base64';

/** `data:[<media type>][;<parameter>=<value>]*;base64,` */
const DATA_URL_PREFIX = /^data:[^,]*;base64,/i;
const WHITESPACE = /[\t\n\f\r ]+/g;
const STANDARD = /^[A-Za-z0-9+/]*={0,2}$/;
const URL_SAFE = /^[A-Za-z0-9_-]*={0,2}$/;

const invalid = (detail: string): ApiError =>
  new ApiError(400, 'invalid_base64', `file_base64 no es base64 válido: ${detail}.`, PARAM);

/**
 * Decodes `file_base64`. Accepts an optional `data:<mime>;base64,` prefix, ASCII whitespace
 * anywhere, the standard (`+/`) or the URL-safe (`-_`) alphabet (one of them, not mixed), with
 * or without `=` padding. Errors: 400 `invalid_base64`, 400 `empty_file`, 413 `file_too_large`
 * (checked from the text length, before decoding).
 */
export function decodeBase64File(value: string): Uint8Array {
  if (typeof value !== 'string') throw invalid('debe ser una cadena de texto');
  let text = value.trim();
  const prefix = DATA_URL_PREFIX.exec(text);
  if (prefix) text = text.slice(prefix[0].length);
  else if (/^data:/i.test(text)) throw invalid('la URL data: debe declarar ;base64,');
  text = text.replace(WHITESPACE, '');

  if (text.length === 0) throw new ApiError(400, 'empty_file', 'El archivo está vacío.', PARAM);
  if (!STANDARD.test(text) && !URL_SAFE.test(text)) {
    throw invalid('contiene caracteres fuera del alfabeto base64 (o mezcla el estándar y el URL-safe)');
  }

  const padding = text.endsWith('==') ? 2 : text.endsWith('=') ? 1 : 0;
  const dataChars = text.length - padding;
  if (padding > 0 && text.length % 4 !== 0) throw invalid('el relleno (=) no es correcto');
  if (dataChars % 4 === 1) throw invalid('la longitud no es válida');

  const decodedLength = Math.floor((dataChars * 3) / 4);
  if (decodedLength === 0) throw new ApiError(400, 'empty_file', 'El archivo está vacío.', PARAM);
  if (decodedLength > MAX_FILE_BYTES) {
    throw new ApiError(413, 'file_too_large', 'El archivo supera el tamaño máximo de 20 MB.', PARAM);
  }
  // Node's decoder reads both alphabets, with or without padding; the text was validated above.
  return Buffer.from(text, 'base64');
}
