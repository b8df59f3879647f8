/**
 * Writes a self-signed certificate for the quickstart's local webhook receiver (127.0.0.1, localhost), valid 24 hours.
 * Run it with `node examples/make-cert.mjs` (any Node: it runs this file with the project's Node 24).
 */
import fs from 'node:fs';
import path from 'node:path';
import { selfSignedCert } from '../test/unit/webhooks/receiver.ts';
import { CERT_DIR } from './quickstart.ts';

const { cert, key } = await selfSignedCert();
fs.mkdirSync(CERT_DIR, { recursive: true });
fs.writeFileSync(path.join(CERT_DIR, 'receiver.pem'), cert);
fs.writeFileSync(path.join(CERT_DIR, 'receiver-key.pem'), key, { mode: 0o600 });
process.stdout.write(`wrote ${path.join(CERT_DIR, 'receiver.pem')} and receiver-key.pem (valid 24 h)\n`);
process.stdout.write('Restart Cotejo if it is running, so that it trusts this certificate (NODE_EXTRA_CA_CERTS is read at start).\n');
