import { describe, expect, it } from 'vitest';
import { decodeBase64File } from '../../../server/src/domain/intake/base64.ts';
import { MAX_FILE_BYTES } from '../../../server/src/input/limits.ts';
import { expectApiError } from './helpers.ts';

// 0xfb 0xff 0xbf encodes to "+/+/" in the standard alphabet and "-_-_" in the URL-safe one.
const bytes = Uint8Array.from([0x25, 0x50, 0x44, 0x46, 0x2d, 0xfb, 0xff, 0xbf, 0x00, 0x01]);
const std = Buffer.from(bytes).toString('base64'); // "JVBERi37/78AAQ=="
const url = Buffer.from(bytes).toString('base64url'); // "JVBERi37_78AAQ"

const same = (got: Uint8Array): void => expect(Array.from(got)).toEqual(Array.from(bytes));

describe('decodeBase64File: accepted forms', () => {
  it('standard alphabet, with padding', () => {
    expect(std).toMatch(/[+/].*==$/);
    same(decodeBase64File(std));
  });

  it('standard alphabet without padding', () => same(decodeBase64File(std.replace(/=+$/, ''))));

  it('URL-safe alphabet, with and without padding', () => {
    expect(url).toMatch(/[-_]/);
    same(decodeBase64File(url));
    same(decodeBase64File(`${url}==`));
  });

  it('a data: URL prefix, with or without media type and parameters', () => {
    same(decodeBase64File(`data:application/pdf;base64,${std}`));
    same(decodeBase64File(`DATA:image/png;name=scan.png;base64,${std}`));
    same(decodeBase64File(`data:;base64,${url}`));
  });

  it('whitespace and line breaks anywhere (MIME style 76-column lines, CRLF, tabs)', () => {
    same(decodeBase64File(`  ${std.slice(0, 4)}\r\n${std.slice(4, 9)}\n\t${std.slice(9)}  \n`));
    same(decodeBase64File(`data:application/pdf;base64,\n${std.slice(0, 6)} ${std.slice(6)}`));
  });

  it('a larger payload round-trips', () => {
    const big = new Uint8Array(100_000).map((_, i) => (i * 31) & 0xff);
    const text = Buffer.from(big).toString('base64').replace(/(.{76})/g, '$1\n');
    expect(Buffer.from(decodeBase64File(text)).equals(Buffer.from(big))).toBe(true);
  });
});

describe('decodeBase64File: rejected forms', () => {
  it.each([
    ['characters outside the alphabet', 'JVBE*i0x'],
    ['a non-ASCII letter', 'JVBERiñx'],
    ['mixed alphabets', 'ab+_cd=='],
    ['padding in the middle', 'JV==BERi'],
    ['too much padding', 'JVBERi0==='],
    ['wrong padding length', 'JVBERi0=='],
    ['a length no base64 can have', 'JVBER'],
    ['a data: URL without ;base64', 'data:application/pdf,JVBERi0x'],
    ['percent-encoding', 'JVBERi0x%3D'],
  ])('%s => 400 invalid_base64', async (_what, value) => {
    await expectApiError(() => decodeBase64File(value), 400, 'invalid_base64', 'file_base64');
  });

  it('a non-string => 400 invalid_base64', async () => {
    await expectApiError(() => decodeBase64File(42 as unknown as string), 400, 'invalid_base64', 'file_base64');
  });

  it('nothing to decode => 400 empty_file', async () => {
    for (const value of ['', '   \n', 'data:application/pdf;base64,', 'data:;base64,\r\n']) {
      await expectApiError(() => decodeBase64File(value), 400, 'empty_file', 'file_base64');
    }
  });

  it('over 20 MiB decoded => 413 file_too_large (judged from the text length); exactly 20 MiB is fine', async () => {
    // 20 MiB = 3 × groups + 2 bytes: `groups` full 4-character groups, then a 3-character group.
    const groups = Math.floor(MAX_FILE_BYTES / 3);
    expect(MAX_FILE_BYTES - groups * 3).toBe(2);
    const exact = 'A'.repeat(groups * 4 + 3);
    expect(decodeBase64File(exact).length).toBe(MAX_FILE_BYTES);
    await expectApiError(() => decodeBase64File(`${exact}A`), 413, 'file_too_large', 'file_base64');
    await expectApiError(() => decodeBase64File(`data:application/pdf;base64,${'A'.repeat(30 * 1024 * 1024)}`), 413, 'file_too_large', 'file_base64');
  });
});
