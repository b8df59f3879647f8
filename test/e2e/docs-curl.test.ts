// Every curl in README.md and docs/*.md runs as written (#29 item 6): each ```sh / ```bash / ```console block that
// holds a `curl` is run by bash, in order, against a real started server (`npm start` on an empty embedded database),
// with what the docs tell a reader to export (README.md, "Try it"): COTEJO_URL, COTEJO_TEST_KEY and COTEJO_LIVE_KEY
// (the keys the first start prints). The files a command sends (`-F file=@dni_valid.jpg`, `$(base64 -w0 invoice.pdf)`)
// are there, as any photo or PDF of the reader's would be: test mode reads the file's name.
//
// Every request must answer 2xx, unless the block is marked, on the line before it, with
// `<!-- curl-test: status 401 -->` (the doc shows that error on purpose); `<!-- curl-test: skip: why -->` leaves a
// block out (one that needs what a test cannot have, e.g. a production PostgreSQL and S3), and says why. An id a
// command's answer holds (`dos_...`, `tpl_...`, `an_...`...) is exported to the blocks after it, under the name the docs
// use for it (DOSSIER_ID, TEMPLATE_ID, ANALYSIS_ID...).
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fixtures } from '../support/files.ts';
import { ROOT, startServer, stop, tmpDir, type RunningServer } from '../support/server-process.ts';

interface Block {
  name: string;
  code: string;
  /** The status every request of the block must answer; null: any 2xx. */
  status: number | null;
  skip: string | null;
}

const FENCE = /^```(sh|bash|console)\n([\s\S]*?)^```/gm;
const MARK = /<!--\s*curl-test:\s*(status (\d{3})|skip:\s*(.*?))\s*-->\s*$/;

function blocksOf(file: string): Block[] {
  const text = fs.readFileSync(path.join(ROOT, file), 'utf8');
  const out: Block[] = [];
  for (const m of text.matchAll(FENCE)) {
    if (!/(^|\s)curl\s/m.test(m[2])) continue;
    const before = text.slice(0, m.index).trimEnd().split('\n').pop() ?? '';
    const mark = MARK.exec(before);
    out.push({ name: `${file}:${text.slice(0, m.index).split('\n').length}`, code: m[2], status: mark?.[2] ? Number(mark[2]) : null, skip: mark?.[3] ?? null });
  }
  return out;
}

const FILES = ['README.md', ...fs.readdirSync(path.join(ROOT, 'docs')).filter((f) => f.endsWith('.md')).sort().map((f) => `docs/${f}`)];
const BLOCKS = FILES.flatMap(blocksOf);

/**
 * curl as the reader runs it, plus, after each request, its status on a line of its own; the id an answer starts with
 * (`{"id":"dos_...`) is exported under the name the docs give it, for the commands after it (in this block and the
 * next ones: the variables are printed at the end).
 */
const ID_NAMES: Record<string, string> = { an: 'ANALYSIS_ID', dos: 'DOSSIER_ID', tpl: 'TEMPLATE_ID', bat: 'BATCH_ID', vl: 'LINK_ID', we: 'ENDPOINT_ID', cl: 'CLASSIFICATION_ID' };
// A 429 (the key's per-second limit: the commands run back to back here, not at a reader's pace) waits a second and
// sends that one request again, as a reader would; the rest of the block is not run twice (a block that ends with a
// DELETE would otherwise delete, then fail on the retry). A body piped in (`--data-binary @-`) is kept for the retry.
const PRELUDE = `set -eo pipefail
curl() {
  local out id a body="" i
  local args=()
  for a in "$@"; do
    if [ "$a" = "@-" ]; then body=$(mktemp); cat > "$body"; a="@$body"; fi
    args+=("$a")
  done
  for i in 1 2 3 4; do
    out=$(command curl -sS -w '\\n@@status %{http_code}' "\${args[@]}")
    [ "\${CURL_TEST_RETRY_429:-1}" = 1 ] && [ "$i" -lt 4 ] && printf '%s' "$out" | grep -q '^@@status 429$' || break
    sleep 1.1
  done
  [ -n "$body" ] && rm -f "$body"
  printf '%s\\n' "$out"
  id=$(printf '%s' "$out" | head -c 300 | grep -o '^{"id":"[a-z]*_[0-9A-Za-z]*"' | head -n 1 | cut -d '"' -f 4 || true)
  case "$id" in
${Object.entries(ID_NAMES).map(([p, name]) => `    ${p}_*) export ${name}="$id" ;;`).join('\n')}
  esac
}
trap 'for v in ${Object.values(ID_NAMES).join(' ')}; do [ -n "\${!v:-}" ] && printf "@@env %s=%s\\n" "$v" "\${!v}"; done; true' EXIT
`;

function run(script: string, cwd: string, env: Record<string, string>): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile('bash', ['-c', PRELUDE + script], { cwd, env: { PATH: process.env.PATH ?? '', HOME: cwd, ...env }, maxBuffer: 64 << 20, timeout: 120_000 }, (err, stdout, stderr) =>
      resolve({ code: err ? (typeof err.code === 'number' ? err.code : 1) : 0, stdout, stderr }),
    );
  });
}

describe('every curl in README.md and docs/*.md, run as written against `npm start`', () => {
  let server: RunningServer;
  const env: Record<string, string> = {};
  let work: string;

  beforeAll(async () => {
    server = await startServer({ COTEJO_DATA_DIR: tmpDir(), PORT: '0', MISTRAL_API_KEY: '' });
    const banner = server.out.join('');
    env.COTEJO_URL = server.baseUrl;
    env.COTEJO_TEST_KEY = server.key!;
    env.COTEJO_LIVE_KEY = /\b(ck_live_[0-9A-Za-z]+)/.exec(banner)![1];
    // Every file a command sends, as the reader's own photo or PDF.
    work = tmpDir();
    for (const b of BLOCKS) {
      for (const m of b.code.matchAll(/(?:=@|-w0 )(?:\.\/)?([\w.-]+\.(jpg|jpeg|png|pdf))/g)) {
        fs.writeFileSync(path.join(work, m[1]), m[2] === 'pdf' ? fixtures.pdf() : m[2] === 'png' ? fixtures.png() : fixtures.jpeg());
      }
    }
  }, 180_000);
  afterAll(async () => {
    if (server) await stop(server.child);
  });

  it('finds the curl blocks', () => {
    expect(BLOCKS.length).toBeGreaterThan(15);
  });

  it.each(BLOCKS.map((b) => [b.name, b]))('%s', async (_name, block: Block) => {
    if (block.skip !== null) {
      expect(block.skip.length, 'a skipped block says why').toBeGreaterThan(3);
      return;
    }
    const r = await run(block.code, work, { ...env, CURL_TEST_RETRY_429: block.status === 429 ? '0' : '1' });
    expect(r.code, `exit code\n${r.stderr}\n${r.stdout}`).toBe(0);
    const statuses = [...r.stdout.matchAll(/^@@status (\d{3})$/gm)].map((m) => Number(m[1]));
    for (const m of r.stdout.matchAll(/^@@env (\w+)=(\S+)$/gm)) env[m[1]] = m[2];
    expect(statuses.length, `no request ran:\n${r.stdout}${r.stderr}`).toBeGreaterThan(0);
    for (const s of statuses) {
      if (block.status !== null) expect(s, r.stdout).toBe(block.status);
      else expect(s >= 200 && s < 300, `status ${s}:\n${r.stdout.slice(0, 2000)}`).toBe(true);
    }
  }, 150_000);
});
