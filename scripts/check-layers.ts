// Layer check (`npm run deps`, run by .ci/run): the direction of server/src's imports that import circles alone do not
// catch. The HTTP layer (http/) is imported only by what serves HTTP: the routes, the web pages and the app's
// entry points. The domain, jobs, webhooks, providers, validators, storage, db and the rest take what they share from
// modules outside http/ (errors.ts, input/, domain/pagination.ts, db/...; docs/development.md "The shape of the
// server"). Every import counts: `import type`, `export ... from` and `import()` too. Exits 1 naming each import that
// breaks a rule.
import fs from 'node:fs';
import path from 'node:path';
import ts from 'typescript';

const SRC = path.resolve(import.meta.dirname, '../server/src');

interface Rule {
  /** The layer (a folder of server/src, with its trailing slash). */
  layer: string;
  /** Who may import it: folders (trailing slash) or files of server/src; the layer may always import itself. */
  importedOnlyBy: string[];
  why: string;
}

const RULES: Rule[] = [
  {
    layer: 'http/',
    importedOnlyBy: ['routes/', 'web/', 'app.ts', 'serve.ts', 'main.ts'],
    why: 'the domain and everything below it import nothing from http/ (shared/ARCHITECTURE.md)',
  },
];

function sourceFiles(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true, recursive: true })
    .filter((e) => e.isFile() && e.name.endsWith('.ts') && !e.name.endsWith('.d.ts'))
    .map((e) => path.join(e.parentPath, e.name));
}

const within = (rel: string, where: string): boolean => (where.endsWith('/') ? rel.startsWith(where) : rel === where);

const problems: string[] = [];
for (const file of sourceFiles(SRC)) {
  const from = path.relative(SRC, file).split(path.sep).join('/');
  const text = fs.readFileSync(file, 'utf8');
  const { importedFiles } = ts.preProcessFile(text, true, true);
  for (const imported of importedFiles) {
    if (!imported.fileName.startsWith('.')) continue;
    const target = path.relative(SRC, path.resolve(path.dirname(file), imported.fileName)).split(path.sep).join('/');
    for (const rule of RULES) {
      if (!within(target, rule.layer) || within(from, rule.layer)) continue;
      if (rule.importedOnlyBy.some((where) => within(from, where))) continue;
      const line = ts.getLineAndCharacterOfPosition(ts.createSourceFile(file, text, ts.ScriptTarget.Latest), imported.pos).line + 1;
      problems.push(`server/src/${from}:${line} imports server/src/${target}: ${rule.why}`);
    }
  }
}

if (problems.length > 0) {
  console.error(`Layer check: ${problems.length} import(s) against the direction of server/src:\n${problems.join('\n')}`);
  process.exit(1);
}
console.log(`Layer check: no import against ${RULES.map((r) => r.layer).join(', ')} in ${sourceFiles(SRC).length} files`);
