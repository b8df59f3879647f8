/**
 * The local outbox: where emails go when no SMTP server is configured (the embedded default), so that none is ever
 * silently dropped. One email is two files under `<dataDir>/outbox/`:
 *
 * - `<id>.eml`: the whole message exactly as it would have gone over SMTP (RFC 5322, CRLF): any mail client opens it.
 * - `<id>.json`: what the CLI lists (`outbox list`, `outbox show <id>`): id, date, from, to, subject, Message-ID and
 *   the plain text.
 *
 * Both may hold a link's secret URL: the directory is private to the service's user (0700, files 0600). Each file is
 * written under a temporary name and renamed, and the JSON last, so an entry the CLI sees is always complete.
 * Ids are `mail_` + ULID: sorting the names sorts by time.
 */
import fs from 'node:fs/promises';
import path from 'node:path';

export interface OutboxSummary {
  id: string;
  created_at: string;
  from: string;
  to: string;
  subject: string;
}

export interface OutboxEntry extends OutboxSummary {
  message_id: string;
  /** The plain-text body. */
  text: string;
  /** Absolute path of the `.eml` file. */
  eml_path: string;
}

const ID_RE = /^mail_[0-9A-HJKMNP-TV-Z]{26}$/;

export function isMailId(value: string): boolean {
  return ID_RE.test(value);
}

export function outboxDir(dataDir: string): string {
  return path.join(dataDir, 'outbox');
}

async function writePrivate(file: string, data: string | Uint8Array): Promise<void> {
  const tmp = `${file}.${process.pid}.tmp`;
  await fs.writeFile(tmp, data, { mode: 0o600 });
  await fs.rename(tmp, file);
}

/** Stores one message (its raw bytes and its listing record). */
export async function writeToOutbox(dir: string, entry: Omit<OutboxEntry, 'eml_path'>, raw: Uint8Array): Promise<string> {
  if (!isMailId(entry.id)) throw new Error(`not a mail id: ${entry.id}`);
  await fs.mkdir(dir, { recursive: true, mode: 0o700 });
  const eml = path.join(dir, `${entry.id}.eml`);
  await writePrivate(eml, raw);
  await writePrivate(path.join(dir, `${entry.id}.json`), `${JSON.stringify(entry, null, 2)}\n`);
  return eml;
}

async function readRecord(dir: string, id: string): Promise<OutboxEntry | null> {
  let raw: string;
  try {
    raw = await fs.readFile(path.join(dir, `${id}.json`), 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw err;
  }
  try {
    const r = JSON.parse(raw) as Partial<OutboxEntry>;
    if (r.id !== id || typeof r.to !== 'string' || typeof r.subject !== 'string' || typeof r.created_at !== 'string') return null;
    return {
      id,
      created_at: r.created_at,
      from: String(r.from ?? ''),
      to: r.to,
      subject: r.subject,
      message_id: String(r.message_id ?? ''),
      text: String(r.text ?? ''),
      eml_path: path.join(dir, `${id}.eml`),
    };
  } catch {
    // A file someone edited by hand: skip it rather than fail the whole listing.
    return null;
  }
}

/** The newest `limit` emails first, and how many the outbox holds. A missing directory is an empty outbox. */
export async function listOutbox(dir: string, limit: number): Promise<{ total: number; emails: OutboxSummary[] }> {
  let names: string[];
  try {
    names = await fs.readdir(dir);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return { total: 0, emails: [] };
    throw err;
  }
  const ids = names
    .filter((n) => n.endsWith('.json') && isMailId(n.slice(0, -5)))
    .map((n) => n.slice(0, -5))
    .sort()
    .reverse();
  const emails: OutboxSummary[] = [];
  for (const id of ids) {
    if (emails.length >= limit) break;
    const r = await readRecord(dir, id);
    if (r) emails.push({ id: r.id, created_at: r.created_at, from: r.from, to: r.to, subject: r.subject });
  }
  return { total: ids.length, emails };
}

/** One email of the outbox, or null when there is none by that id (or the id is not one). */
export async function readOutbox(dir: string, id: string): Promise<OutboxEntry | null> {
  if (!isMailId(id)) return null;
  return readRecord(dir, id);
}
