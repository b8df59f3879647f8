// Knip preprocessor (knip.config.ts): the tests, benches, scripts and examples at the root drive the server, so they
// import its dependencies, which npm hoists to node_modules/. Knip reports such an import as "unlisted" in the root
// workspace; this drops exactly those reports (a package that server/package.json declares), and keeps every other
// one. (An `ignoreDependencies` list on the root would not do: Knip applies the root's ignores to every workspace,
// so it would also hide an unused dependency of the server.)
import fs from 'node:fs';
import type { Preprocessor } from 'knip';

const server = JSON.parse(fs.readFileSync(new URL('../server/package.json', import.meta.url), 'utf8'));
const serverDependencies = new Set(Object.keys(server.dependencies ?? {}));

/** `@scope/name/sub/path` -> `@scope/name`, `name/sub` -> `name`. */
const packageName = (specifier: string) => specifier.split('/').slice(0, specifier.startsWith('@') ? 2 : 1).join('/');

const preprocess: Preprocessor = (data) => {
  for (const [file, records] of Object.entries(data.issues.unlisted)) {
    for (const [key, issue] of Object.entries(records)) {
      if (issue.workspace === '.' && serverDependencies.has(packageName(issue.symbol))) {
        delete records[key];
        data.counters.unlisted--;
      }
    }
    if (Object.keys(records).length === 0) delete data.issues.unlisted[file];
  }
  return data;
};

export default preprocess;
