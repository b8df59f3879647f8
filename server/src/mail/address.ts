/**
 * Email addresses, checked without a library: the service only sends to one plain address at a time (a link's
 * `notify_email` or `results_email`) from one configured sender, so a strict and simple form is enough. Anything a
 * header could be smuggled through (CR, LF, commas, angle brackets, quotes) is refused.
 */

/** A mailbox for the From header: nodemailer gets it as an object and encodes the name itself. */
export interface Mailbox {
  name: string | null;
  address: string;
}

// local@domain: the dot-atom local part of RFC 5322 (no quoted strings), and a domain of LDH labels (or a single one,
// such as `localhost`, which the default sender uses).
const LOCAL = /^[A-Za-z0-9!#$%&'*+/=?^_`{|}~-]+(?:\.[A-Za-z0-9!#$%&'*+/=?^_`{|}~-]+)*$/;
const LABEL = /^[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?$/;

/** True for one plain address `local@domain` of at most 254 characters. */
export function isEmailAddress(value: unknown): value is string {
  if (typeof value !== 'string' || value.length > 254) return false;
  const at = value.lastIndexOf('@');
  if (at <= 0 || at > 64 || at === value.length - 1) return false;
  const local = value.slice(0, at);
  const domain = value.slice(at + 1);
  return LOCAL.test(local) && domain.length <= 253 && domain.split('.').every((l) => LABEL.test(l));
}

/**
 * `Name <local@domain>` or a bare `local@domain` (the display name may be in double quotes); null when it is not one
 * such mailbox. The name is at most 100 characters, without control characters, angle brackets or quotes inside.
 */
export function parseMailbox(raw: string): Mailbox | null {
  const text = raw.trim();
  if (isEmailAddress(text)) return { name: null, address: text };
  const m = /^(.*?)\s*<([^<>]*)>$/.exec(text);
  if (!m) return null;
  let name = m[1].trim();
  if (name.length >= 2 && name.startsWith('"') && name.endsWith('"')) name = name.slice(1, -1).trim();
  if (name.length > 100 || /[\u0000-\u001f\u007f<>"]/.test(name)) return null;
  if (!isEmailAddress(m[2])) return null;
  return { name: name === '' ? null : name, address: m[2] };
}

/** The mailbox as a header would show it (for logs and the CLI). */
export function formatMailbox(m: Mailbox): string {
  return m.name ? `${m.name} <${m.address}>` : m.address;
}
