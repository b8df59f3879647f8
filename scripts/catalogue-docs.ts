/**
 * Regenerates docs/document-types.md from the catalogue and appends newly added types to the list of published
 * ids and slugs (test/unit/catalogue/published.tsv). Existing lines of that list are never changed: the catalogue
 * test fails if a published type id or slug disappears. Run: `node scripts/catalogue-docs.ts`.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { publishedLine, renderDocumentTypesMarkdown } from '../server/src/catalogue/docs.ts';
import { allEntries } from '../server/src/catalogue/index.ts';

const docs = fileURLToPath(new URL('../docs/document-types.md', import.meta.url));
writeFileSync(docs, renderDocumentTypesMarkdown());
console.log(`wrote ${docs}`);

const published = fileURLToPath(new URL('../test/unit/catalogue/published.tsv', import.meta.url));
const text = existsSync(published) ? readFileSync(published, 'utf8') : '# type\tslug_es\tslug_en\tslug_pt\tslug_fr\n';
const known = new Set(text.split('\n').filter((l) => l && !l.startsWith('#')).map((l) => l.split('\t')[0]));
const added = allEntries().filter((e) => !known.has(e.type));
if (added.length > 0) {
  writeFileSync(published, text + added.map((e) => publishedLine(e) + '\n').join(''));
  console.log(`appended ${added.length} new type(s) to ${published}: ${added.map((e) => e.type).join(', ')}`);
}
