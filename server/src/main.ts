// `npm start`: the server. Node's compile cache is turned on before anything else loads, so a second start reuses the
// compiled (and type-stripped) modules instead of compiling them again: about 0.4 s of every start after the first
// (the cache lives in the system's temporary directory, keyed by each file's content; NODE_COMPILE_CACHE moves it,
// NODE_DISABLE_COMPILE_CACHE=1 turns it off).
import module from 'node:module';

module.enableCompileCache?.();
await import('./serve.ts');
