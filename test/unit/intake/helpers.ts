import { join } from 'node:path';
import { crc32, deflateSync } from 'node:zlib';
import { expect } from 'vitest';
import { ApiError } from '../../../server/src/errors.ts';

export const SHARED = join(import.meta.dirname, '../../../../shared/testdata/documents');
export const FIXTURES = join(import.meta.dirname, '../../fixtures/intake');

/** Runs `fn` and checks it throws an ApiError with this status, code and (when given) param. */
export async function expectApiError(
  fn: () => unknown,
  status: number,
  code: string,
  param?: string,
): Promise<ApiError> {
  let caught: unknown;
  try {
    await fn();
  } catch (err) {
    caught = err;
  }
  expect(caught, `expected ApiError ${status} ${code}`).toBeInstanceOf(ApiError);
  const err = caught as ApiError;
  expect({ status: err.status, code: err.code }).toEqual({ status, code });
  if (param !== undefined) expect(err.param).toBe(param);
  expect(err.message.length).toBeGreaterThan(0);
  return err;
}

function pngChunk(type: string, data: Uint8Array): Buffer {
  const len = Buffer.alloc(4);
  len.writeUInt32BE(data.length);
  const body = Buffer.concat([Buffer.from(type, 'latin1'), data]);
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(body));
  return Buffer.concat([len, body, crc]);
}

/** A structurally valid PNG header that declares width × height (a decompression bomb's shape). */
export function hugePng(width: number, height: number): Buffer {
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(width, 0);
  ihdr.writeUInt32BE(height, 4);
  ihdr.set([8, 0, 0, 0, 0], 8); // 8-bit greyscale
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    pngChunk('IHDR', ihdr),
    pngChunk('IDAT', deflateSync(Buffer.alloc(width + 1))),
    pngChunk('IEND', new Uint8Array()),
  ]);
}
