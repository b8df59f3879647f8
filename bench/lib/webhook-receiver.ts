/**
 * A benchmark webhook receiver: HTTPS on 127.0.0.1 with a self-signed certificate made at start-up
 * (the test receiver's), answering 200 to everything. Each request is stamped on arrival and verified
 * twice: the HMAC recomputed with node:crypto (Standard Webhooks: HMAC-SHA256 over
 * "<webhook-id>.<webhook-timestamp>.<body>", keyed by the bytes after `whsec_`) and the
 * `standardwebhooks` library's `verify` (which also checks the timestamp tolerance against Date.now()).
 */
import crypto from "node:crypto";
import https from "node:https";
import type { AddressInfo } from "node:net";
import { Webhook } from "standardwebhooks";
import { selfSignedCert } from "../../test/unit/webhooks/receiver.ts";

export interface Received {
  /** Date.now() when the whole body had arrived. */
  receivedAt: number;
  path: string;
  webhookId: string;
  body: any;
  verified: boolean;
}

export interface BenchReceiver {
  url: (path: string) => string;
  /** PEM of the self-signed certificate. */
  ca: string;
  /** Secrets per path, set once the endpoint exists (a delivery to a path with no secret counts as unverified). */
  secrets: Map<string, string>;
  received: Received[];
  /** Called on every received request (after verification). */
  onReceive: ((r: Received) => void) | null;
  connections: () => number;
  close: () => Promise<void>;
}

function verify(
  secret: string,
  headers: Record<string, string>,
  raw: string,
): boolean {
  const key = Buffer.from(secret.slice("whsec_".length), "base64");
  const expected = `v1,${crypto.createHmac("sha256", key).update(`${headers["webhook-id"]}.${headers["webhook-timestamp"]}.${raw}`).digest("base64")}`;
  const sigs = (headers["webhook-signature"] ?? "").split(" ");
  if (!sigs.includes(expected)) return false;
  try {
    new Webhook(secret).verify(raw, headers);
    return true;
  } catch {
    return false;
  }
}

export async function startBenchReceiver(): Promise<BenchReceiver> {
  const { cert, key } = await selfSignedCert();
  let connections = 0;
  const r: BenchReceiver = {
    url: () => "",
    ca: cert,
    secrets: new Map(),
    received: [],
    onReceive: null,
    connections: () => connections,
    close: async () => undefined,
  };
  const server = https.createServer({ cert, key }, (req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const receivedAt = Date.now();
      const path = new URL(req.url ?? "/", "https://x").pathname;
      const headers: Record<string, string> = {};
      for (const [k, v] of Object.entries(req.headers))
        headers[k] = Array.isArray(v) ? v.join(", ") : String(v);
      const raw = Buffer.concat(chunks).toString("utf8");
      const secret = r.secrets.get(path);
      const rec: Received = {
        receivedAt,
        path,
        webhookId: headers["webhook-id"] ?? "",
        body: JSON.parse(raw),
        verified: secret !== undefined && verify(secret, headers, raw),
      };
      r.received.push(rec);
      res.on("error", () => undefined);
      res.writeHead(200, { "content-type": "text/plain" }).end("ok");
      r.onReceive?.(rec);
    });
  });
  server.on("connection", () => connections++);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.address() as AddressInfo).port;
  r.url = (path) => `https://127.0.0.1:${port}${path}`;
  r.close = async () => {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  };
  return r;
}
