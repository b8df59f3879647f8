// Dependency check (`npm run deps`, run by .ci/run): every package a package.json declares is imported somewhere,
// and every package the code imports is declared. Only dependency issues are reported (unused files and exports are
// not this check's business). Ignores below are the imports Knip cannot see, each with where the use is.
import fs from 'node:fs';
import type { KnipConfig } from 'knip';

export default {
  include: ['dependencies', 'devDependencies', 'optionalPeerDependencies', 'unlisted', 'binaries', 'unresolved'],
  // The root's tests, benches, scripts and examples may import the server's dependencies (see that file).
  preprocessor: './scripts/knip-server-deps.ts',
  // spec/*.tsp load TypeSpec libraries with `import "@typespec/...";` lines.
  compilers: {
    tsp: (text: string) =>
      [...text.matchAll(/^\s*import\s+"([^"]+)"\s*;/gm)].map(([, specifier]) => `import '${specifier}';`).join('\n'),
  },
  workspaces: {
    '.': {
      entry: [
        'spec/main.tsp',
        'scripts/**/*.ts',
        'test/**/*.{ts,cjs}',
        'bench/**/*.ts',
        'examples/*.{ts,mjs}',
      ],
      project: ['spec/**/*.tsp', '{scripts,test,bench}/**/*.{ts,cjs}', 'examples/*.{ts,mjs}', '*.ts'],
      ignoreDependencies: [
        // scripts/contract.ts runs node_modules/dredd/bin/dredd by path, and Dredd gives its hook files (such as
        // test/contract/hooks.cjs) `require('hooks')`.
        'dredd',
        'hooks',
        // test/support/s3rver.ts loads it with createRequire (it ships no types).
        's3rver',
        // scripts/mock.ts (`npm run mock`) runs its binary, node_modules/.bin/prism, by path.
        '@stoplight/prism-cli',
      ],
      // Optional system tools, used when present: util-linux's `unshare` (test/unit/local/ocr.test.ts) and `mount` /
      // `umount` (a tmpfs, test/faults/disk-full.test.ts), the PostgreSQL client programs (bench/) and libheif's
      // `heif-enc` (bench/image-reader.ts).
      ignoreBinaries: ['unshare', 'mount', 'umount', 'psql', 'createdb', 'dropdb', 'heif-enc'],
    },
    server: {
      // src/providers/local/ocr.ts finds the OCR language data with require.resolve(`@tesseract.js-data/${lang}/...`).
      ignoreDependencies: [/^@tesseract\.js-data\//],
    },
    sdk: {
      entry: ['src/index.ts', 'scripts/*.ts'],
      // The published build imports @cotejo/webhooks: scripts/build.ts rewrites the sources' relative import of
      // ../../webhooks-verifier/src/index.ts to it. Knip sees that import in the built declarations (dist/, not in
      // git) when they are there, and is told of it when they are not.
      ignoreDependencies: fs.existsSync(new URL('./sdk/dist/webhooks.d.ts', import.meta.url)) ? [] : ['@cotejo/webhooks'],
    },
    'webhooks-verifier': {
      entry: ['scripts/*.ts'],
    },
  },
} satisfies KnipConfig;
