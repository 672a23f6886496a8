import { expect } from 'vitest';
import { AppError } from '../../server/errors.ts';

/** Runs fn and returns the AppError it throws (fails the test when it does not throw one). */
export function caught(fn: () => unknown): AppError {
  try {
    fn();
  } catch (e) {
    expect(e).toBeInstanceOf(AppError);
    return e as AppError;
  }
  throw new Error('expected an AppError');
}
