/**
 * Nesting depth of JSON text, measured before it is parsed.
 *
 * A body is refused when it nests deeper than MAX_JSON_DEPTH: before JSON.parse builds millions of nested arrays
 * (8 MB of `[[[...` froze the server for seconds) and before anything recursive meets it (a JSON Schema nested
 * 5,000 deep in `options.extract` overflowed the stack in `JSON.stringify` when stored). One pass over the text,
 * no allocation per level beyond a small frame; the path to the first level too deep is kept so the answer can name
 * the parameter.
 */
import { ApiError } from '../errors.ts';

/** Deepest nesting of objects and arrays a body may have (the root object is level 1). */
export const MAX_JSON_DEPTH = 32;

/** Free-form values of the contract: a too-deep value inside one of these is named by the field itself. */
const FREE_FORM = new Set(['extract', 'metadata']);

interface Frame {
  array: boolean;
  index: number;
  key: string | null;
}

const QUOTE = 0x22;
const BACKSLASH = 0x5c;

function closingQuote(text: string, from: number): number {
  let q = text.indexOf('"', from);
  while (q > 0) {
    let slashes = 0;
    while (text.charCodeAt(q - 1 - slashes) === BACKSLASH) slashes++;
    if (slashes % 2 === 0) return q;
    q = text.indexOf('"', q + 1);
  }
  return text.length;
}

/**
 * The path (keys and indices) to the first container nested deeper than `max`, or null when the text stays within
 * it. Text that is not JSON is measured as far as its brackets go; JSON.parse judges it afterwards.
 */
export function tooDeepAt(text: string, max = MAX_JSON_DEPTH): Array<string | number> | null {
  const stack: Frame[] = [];
  let expectKey = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === QUOTE) {
      const start = i + 1;
      // The closing quote: the next one not escaped (an odd run of backslashes before it escapes it). indexOf keeps
      // a 28 MB base64 string a native search rather than a loop over its characters.
      i = closingQuote(text, start);
      const top = stack[stack.length - 1];
      if (top && !top.array && expectKey) {
        const raw = text.slice(start, Math.min(i, start + 200));
        try {
          top.key = JSON.parse(`"${raw}"`) as string;
        } catch {
          top.key = raw;
        }
        expectKey = false;
      }
      continue;
    }
    if (c === 0x7b /* { */ || c === 0x5b /* [ */) {
      if (stack.length >= max) return stack.map((f) => (f.array ? f.index : (f.key ?? '')));
      stack.push({ array: c === 0x5b, index: 0, key: null });
      expectKey = c === 0x7b;
    } else if (c === 0x7d /* } */ || c === 0x5d /* ] */) {
      stack.pop();
      expectKey = false;
    } else if (c === 0x2c /* , */) {
      const top = stack[stack.length - 1];
      if (top?.array) top.index++;
      else if (top) expectKey = true;
    }
  }
  return null;
}

/**
 * The parameter a too-deep path names: the free-form field it runs through (`options.extract`,
 * `items.3.options.metadata`), else its first key; `prefix` is put before it (`options.` for a multipart field).
 */
export function paramOfDeepPath(path: Array<string | number>, prefix = ''): string | undefined {
  const free = path.findIndex((p) => typeof p === 'string' && FREE_FORM.has(p));
  const parts = free >= 0 ? path.slice(0, free + 1) : path.slice(0, 1).filter((p) => typeof p === 'string' && p !== '');
  const name = parts.join('.');
  return name ? `${prefix}${name}` : prefix ? prefix.replace(/\.$/, '') : undefined;
}

/** Throws 422 `invalid_parameter` when `text` nests deeper than MAX_JSON_DEPTH. */
export function assertJsonDepth(text: string, prefix = ''): void {
  const path = tooDeepAt(text);
  if (!path) return;
  throw new ApiError(
    422,
    'invalid_parameter',
    `El JSON anida más de ${MAX_JSON_DEPTH} niveles de objetos y listas; no se admite tanta profundidad.`,
    paramOfDeepPath(path, prefix),
  );
}
