// `node examples/quickstart.mjs`: the quickstart (examples/quickstart.ts), with any Node; the same as `npm run quickstart`.
import { runTs } from './node24.mjs';

runTs('quickstart.ts');
