// The error a call is expected to throw, for tests that compare its text or fields. One catch for
// every "this input is refused" test: an error of another class is a real failure and propagates, and
// a call that returns fails the test instead of being mistaken for a refusal.
import { ConfigError } from '../../src/config/errors.ts';

type ErrorClass<E extends Error> = abstract new (...args: never[]) => E;

/** The `kind` error that `run(...args)` throws. */
export function thrownBy<E extends Error, A extends unknown[]>(
  kind: ErrorClass<E>,
  run: (...args: A) => unknown,
  ...args: A
): E {
  try {
    run(...args);
  } catch (e) {
    if (e instanceof kind) return e;
    throw e;
  }
  throw new Error(`expected ${run.name || 'the call'} to throw a ${kind.name}`);
}

/** The ConfigError (message, issues with file:line:col) that `load(...args)` throws. */
export function configErrorOf<A extends unknown[]>(load: (...args: A) => unknown, ...args: A): ConfigError {
  return thrownBy(ConfigError, load, ...args);
}

/** The message of the ConfigError that `load(...args)` throws: what most tests hold to the spec's text. */
export function configMessageOf<A extends unknown[]>(load: (...args: A) => unknown, ...args: A): string {
  return thrownBy(ConfigError, load, ...args).message;
}
