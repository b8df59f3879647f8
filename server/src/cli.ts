// `npm run -s cotejo -- ...`: the operator's command line (cli-commands.ts). Node's compile cache is turned on before
// the commands load, as for the server (main.ts): every call after the first skips compiling them again.
import module from 'node:module';

module.enableCompileCache?.();
await import('./cli-commands.ts');
