// `node examples/make-cert.mjs`: writes the quickstart receiver's certificate (examples/make-cert.ts), with any Node.
import { runTs } from './node24.mjs';

runTs('make-cert.ts');
