// @cotejo/webhooks: verifies Cotejo's signed webhook deliveries (Standard Webhooks v1, HMAC-SHA256).
//
// Dependency-free and runtime-neutral: only WebCrypto (`globalThis.crypto.subtle`), `atob`/`btoa`,
// `TextEncoder`/`TextDecoder`. No Node built-ins, so it runs on Node 18+, Deno, Bun, edge runtimes and browsers.

import type { WebhookEvent } from "./events.gen.js";

export type * from "./events.gen.js";

/** The event of one `type`, e.g. `WebhookEventOf<"analysis.completed">`. */
export type WebhookEventOf<T extends WebhookEvent["type"]> = Extract<WebhookEvent, { type: T }>;

/** Why a delivery was rejected. */
export type WebhookVerificationReason =
  | "missing_header"
  | "invalid_timestamp"
  | "timestamp_too_old"
  | "timestamp_too_new"
  | "invalid_signature"
  | "invalid_secret"
  | "invalid_body";

/** The only error `verify` throws for a delivery it rejects. Answer it with a 400 (never 2xx). */
export class WebhookVerificationError extends Error {
  readonly reason: WebhookVerificationReason;

  constructor(reason: WebhookVerificationReason, message: string) {
    super(message);
    this.name = "WebhookVerificationError";
    this.reason = reason;
  }
}

/**
 * Request headers in any of the usual shapes, names in any case:
 * a `Headers` instance (fetch, Next.js, Hono, Deno, Bun, workers), a plain object, or Node's
 * `IncomingHttpHeaders` (values may be arrays).
 */
export type WebhookHeaders =
  | { get(name: string): string | null | undefined }
  | Readonly<Record<string, string | readonly string[] | undefined>>;

/** The raw request body, exactly as received. Node's `Buffer` is a `Uint8Array`. */
export type WebhookBody = string | Uint8Array | ArrayBuffer;

export interface VerifyOptions {
  /** Accepted clock difference in seconds, both ways (inclusive). Default 300. */
  tolerance?: number;
  /** The receiver's clock: a `Date` or Unix time in seconds (not milliseconds). Default: now. */
  now?: Date | number;
}

export interface SignInput {
  /** The `webhook-id` header (`msg_...`). */
  id: string;
  /** The `webhook-timestamp`: a `Date` or Unix time in seconds. */
  timestamp: Date | number;
  /** The exact body bytes that will be sent. */
  body: WebhookBody;
}

const SECRET_PREFIX = "whsec_";
const DEFAULT_TOLERANCE = 300;

const encoder = new TextEncoder();

function subtle(): SubtleCrypto {
  const s = (globalThis as { crypto?: Crypto }).crypto?.subtle;
  if (!s) {
    throw new Error(
      "@cotejo/webhooks needs WebCrypto (globalThis.crypto.subtle). On Node 18 run with --experimental-global-webcrypto " +
        "or set `globalThis.crypto ??= (await import('node:crypto')).webcrypto` before calling it.",
    );
  }
  return s;
}

/** Standard base64, padding optional. Returns null for anything else. */
function decodeBase64(text: string): Uint8Array<ArrayBuffer> | null {
  if (!/^[A-Za-z0-9+/]*={0,2}$/.test(text)) return null;
  const unpadded = text.replace(/=+$/, "");
  if (unpadded.length % 4 === 1) return null;
  if (text.length !== unpadded.length && text.length % 4 !== 0) return null;
  let binary: string;
  try {
    binary = atob(unpadded + "=".repeat((4 - (unpadded.length % 4)) % 4));
  } catch {
    return null;
  }
  const bytes = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
  return bytes;
}

function encodeBase64(bytes: Uint8Array): string {
  let binary = "";
  for (let i = 0; i < bytes.length; i++) binary += String.fromCharCode(bytes[i]);
  return btoa(binary);
}

/** The HMAC key: the secret without `whsec_`, base64-decoded. */
function secretKey(secret: unknown): Uint8Array<ArrayBuffer> {
  if (typeof secret !== "string" || secret.trim() === "") {
    throw new WebhookVerificationError("invalid_secret", "The webhook secret is missing or empty.");
  }
  const encoded = secret.startsWith(SECRET_PREFIX) ? secret.slice(SECRET_PREFIX.length) : secret;
  const key = decodeBase64(encoded);
  if (!key || key.length === 0) {
    throw new WebhookVerificationError(
      "invalid_secret",
      "The webhook secret is not valid: expected `whsec_` followed by base64 (copy it from the dashboard).",
    );
  }
  return key;
}

function bodyBytes(body: unknown, fn: string): Uint8Array {
  if (typeof body === "string") return encoder.encode(body);
  if (body instanceof ArrayBuffer) return new Uint8Array(body);
  if (ArrayBuffer.isView(body)) return new Uint8Array(body.buffer, body.byteOffset, body.byteLength);
  throw new TypeError(
    `${fn}: the body must be the raw request body (string, Uint8Array or ArrayBuffer), got ${body === null ? "null" : typeof body}. ` +
      "Read it before any JSON parser runs, e.g. express.raw({ type: 'application/json' }) or await request.text().",
  );
}

function unixSeconds(value: Date | number, what: string): number {
  const seconds = value instanceof Date ? Math.floor(value.getTime() / 1000) : value;
  if (!Number.isSafeInteger(seconds)) {
    // Also catches an invalid Date (NaN) and fractional numbers.
    throw new TypeError(`${what} must be a Date or an integer number of Unix seconds.`);
  }
  return seconds;
}

async function hmacBase64(key: Uint8Array<ArrayBuffer>, id: string, timestamp: string, body: Uint8Array): Promise<string> {
  const prefix = encoder.encode(`${id}.${timestamp}.`);
  const content = new Uint8Array(prefix.length + body.length);
  content.set(prefix, 0);
  content.set(body, prefix.length);
  const s = subtle();
  const cryptoKey = await s.importKey("raw", key, { name: "HMAC", hash: "SHA-256" }, false, ["sign"]);
  return encodeBase64(new Uint8Array(await s.sign("HMAC", cryptoKey, content)));
}

/** Compares two strings in time that depends only on their lengths. */
function constantTimeEqual(a: string, b: string): boolean {
  if (a.length !== b.length) return false;
  let diff = 0;
  for (let i = 0; i < a.length; i++) diff |= a.charCodeAt(i) ^ b.charCodeAt(i);
  return diff === 0;
}

/** All values of a header, in order, from any supported header shape; name matched case-insensitively. */
function headerValues(headers: WebhookHeaders, name: string): string[] {
  if (typeof (headers as { get?: unknown }).get === "function") {
    const value = (headers as { get(name: string): string | null | undefined }).get(name);
    return value == null ? [] : [value];
  }
  const values: string[] = [];
  for (const [key, value] of Object.entries(headers as Record<string, unknown>)) {
    if (key.toLowerCase() !== name) continue;
    if (typeof value === "string") values.push(value);
    else if (Array.isArray(value)) values.push(...value.filter((v): v is string => typeof v === "string"));
  }
  return values;
}

function requiredHeader(headers: WebhookHeaders, name: string, separator: string): string {
  const value = headerValues(headers, name).join(separator);
  if (value.trim() === "") throw new WebhookVerificationError("missing_header", `Missing ${name} header.`);
  return value;
}

/**
 * Signs a delivery the way Cotejo does (for tests and local tooling): returns the `webhook-signature`
 * value `v1,<base64 HMAC-SHA256>` of `<id>.<timestamp>.<body>`.
 */
export async function sign(secret: string, { id, timestamp, body }: SignInput): Promise<string> {
  if (typeof id !== "string" || id === "") throw new TypeError("sign: id must be a non-empty string.");
  const key = secretKey(secret);
  const seconds = unixSeconds(timestamp, "sign: timestamp");
  return `v1,${await hmacBase64(key, id, String(seconds), bodyBytes(body, "sign"))}`;
}

/**
 * Verifies a delivery and returns its event, parsed only after the signature matched.
 *
 * Checks, in order: the secret, the `webhook-id`, `webhook-timestamp` and `webhook-signature` headers,
 * the timestamp against the clock (± `tolerance` seconds), then the signature over the exact body bytes
 * (one matching `v1` entry suffices; other versions are ignored), then that the body is a JSON object.
 *
 * @throws {WebhookVerificationError} the delivery must be rejected (respond 400); `reason` says why.
 * @throws {TypeError} a programming error: the body or headers are not in a supported shape, or an option is invalid.
 */
export async function verify(
  secret: string,
  headers: WebhookHeaders,
  rawBody: WebhookBody,
  { tolerance = DEFAULT_TOLERANCE, now }: VerifyOptions = {},
): Promise<WebhookEvent> {
  if (typeof tolerance !== "number" || !Number.isFinite(tolerance) || tolerance < 0) {
    throw new TypeError("verify: tolerance must be a non-negative number of seconds.");
  }
  if (headers === null || typeof headers !== "object") throw new TypeError("verify: headers must be an object or a Headers instance.");
  const body = bodyBytes(rawBody, "verify");
  const key = secretKey(secret);

  const id = requiredHeader(headers, "webhook-id", ", ");
  const timestamp = requiredHeader(headers, "webhook-timestamp", ", ");
  const signatures = requiredHeader(headers, "webhook-signature", " ");

  if (!/^[0-9]{1,15}$/.test(timestamp)) {
    throw new WebhookVerificationError("invalid_timestamp", "The webhook-timestamp header is not a Unix time in seconds.");
  }
  const sentAt = Number(timestamp);
  const clock = now === undefined ? Math.floor(Date.now() / 1000) : unixSeconds(now, "verify: now");
  if (sentAt < clock - tolerance) {
    throw new WebhookVerificationError("timestamp_too_old", `The webhook-timestamp is more than ${tolerance} s in the past.`);
  }
  if (sentAt > clock + tolerance) {
    throw new WebhookVerificationError("timestamp_too_new", `The webhook-timestamp is more than ${tolerance} s in the future.`);
  }

  const expected = await hmacBase64(key, id, timestamp, body);
  let matched = false;
  for (const entry of signatures.split(" ")) {
    const comma = entry.indexOf(",");
    if (comma < 0 || entry.slice(0, comma) !== "v1") continue;
    // No early exit: every v1 entry is compared.
    if (constantTimeEqual(entry.slice(comma + 1), expected)) matched = true;
  }
  if (!matched) throw new WebhookVerificationError("invalid_signature", "No webhook-signature entry matches.");

  let event: unknown;
  try {
    event = JSON.parse(new TextDecoder("utf-8", { fatal: true }).decode(body));
  } catch {
    throw new WebhookVerificationError("invalid_body", "The body is not JSON.");
  }
  // Only a floor: the shape itself is the API's contract (the signature proves the body is Cotejo's), and
  // `type` may take values newer than this package, so it is not checked against a list.
  if (event === null || typeof event !== "object" || Array.isArray(event)) {
    throw new WebhookVerificationError("invalid_body", "The body is not a JSON object.");
  }
  return event as WebhookEvent;
}
