// An account's name: what a person sees on the hosted page ("Acme te pide unos documentos"), in the emails and in
// the console header. One rule for every place that sets it (CLI, COTEJO_ACCOUNT_NAME, the dashboard's Settings).

export const ACCOUNT_NAME_MAX = 100;
/** The name of the account the first start makes when COTEJO_ACCOUNT_NAME is not set. */
export const DEFAULT_ACCOUNT_NAME = 'Default account';

/** The name as stored (trimmed, inner runs of white space made one space), or null when it cannot be one. */
export function accountName(raw: string): string | null {
  const name = raw.replace(/\s+/g, ' ').trim();
  if (name === '' || [...name].length > ACCOUNT_NAME_MAX || /[\u0000-\u001f\u007f-\u009f]/.test(name)) return null;
  return name;
}
