import { join } from 'node:path';
import { expect } from 'vitest';
import { ApiError } from '../../../server/src/http/errors.ts';

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
