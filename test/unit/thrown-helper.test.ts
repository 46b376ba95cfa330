// The one catch the "this input is refused" tests share (test/helpers/thrown.ts) must not turn a
// call that returns, or an error of another class, into a passing refusal.
import { describe, expect, it } from 'vitest';
import { ConfigError } from '../../src/config/errors.ts';
import { configErrorOf, configMessageOf, thrownBy } from '../helpers/thrown.ts';

const refuse = (message: string) => {
  throw new ConfigError([{ file: 'c.yaml', line: 1, col: 1, message }]);
};

describe('thrownBy and the ConfigError helpers', () => {
  it('hand back the error of the expected class, called with the given arguments', () => {
    expect(configErrorOf(refuse, 'bad')).toBeInstanceOf(ConfigError);
    expect(configMessageOf(refuse, 'bad')).toBe('c.yaml:1:1: bad');
    expect(thrownBy(RangeError, () => [].length.toFixed(101)).name).toBe('RangeError');
  });
  it('let an error of another class through unchanged', () => {
    const other = new TypeError('not a config problem');
    expect(() =>
      configMessageOf(() => {
        throw other;
      }),
    ).toThrow(other);
  });
  it('fail when the call returns', () => {
    const loads = (_yaml: string) => ({ jobs: [] });
    expect(() => configMessageOf(loads, 'jobs: []\n')).toThrow('expected loads to throw a ConfigError');
  });
});
