// Issue 33 item 3: a step that does not divide its field's cycle evenly is not "every N": `*/25` minutes
// fires at :00, :25, :50 and then :00 again ten minutes later, so the describer lists the values instead.
import { describe, expect, it } from 'vitest';
import { describeSchedule } from '../../src/schedule/describe.ts';
import { parseCron } from '../../src/schedule/parse.ts';

const say = (text: string) => describeSchedule(parseCron(text));

describe('describeSchedule: steps', () => {
  it.each([
    // seconds (7 fields: sec min hour dom mon dow year)
    ['*/15 * * * * * *', 'every 15 seconds'],
    ['*/30 * * * * * *', 'every 30 seconds'],
    ['5/20 * * * * * *', 'every 20 seconds from second 5'],
    ['*/25 * * * * * *', 'every minute at seconds 0, 25 and 50'],
    ['*/7 * * * * * *', 'every minute at seconds 0, 7, 14, 21, 28, 35, 42, 49 and 56'],
    // minutes
    ['*/15 * * * *', 'every 15 minutes'],
    ['*/30 * * * *', 'every 30 minutes'],
    ['*/25 * * * *', 'every hour at minutes 0, 25 and 50'],
    ['*/7 * * * *', 'every hour at minutes 0, 7, 14, 21, 28, 35, 42, 49 and 56'],
    ['20,40 * * * *', 'every hour at minutes 20 and 40'],
    ['*/25 9-17 * * *', 'at minutes 0, 25 and 50 between 09:00 and 17:59'],
    // hours
    ['0 */3 * * *', 'every 3 hours at minute 0'],
    ['0 */8 * * *', 'at 00:00, 08:00 and 16:00'],
    ['0 */7 * * *', 'at 00:00, 07:00, 14:00 and 21:00'],
    ['0 */5 * * *', 'at 00:00, 05:00, 10:00, 15:00 and 20:00'],
    ['0 */2 * * *', 'every 2 hours at minute 0'],
    ['0 1/5 * * *', 'at 01:00, 06:00, 11:00, 16:00 and 21:00'],
    ['0 */10 * * *', 'at 00:00, 10:00 and 20:00'],
    ['30 */9 * * *', 'at 00:30, 09:30 and 18:30'],
  ])('%s -> %s', (text, description) => {
    expect(say(text)).toBe(description);
  });

  it('never says "every N" for a step that leaves a shorter gap at the wrap', () => {
    for (const n of [7, 8, 9, 11, 13, 14, 16, 17, 18, 19, 21, 22, 23, 25, 26, 27, 28, 29]) {
      expect(say(`*/${n} * * * * * *`)).not.toMatch(/every \d+ seconds/);
      expect(say(`*/${n} * * * *`)).not.toMatch(/every \d+ minutes/);
    }
    for (const n of [5, 7, 9, 10, 11]) expect(say(`15 */${n} * * *`)).not.toMatch(/every \d+ hours/);
  });

  it('years keep their step to the field end', () => {
    expect(say('0 0 1 1 * 2026/2')).toBe('at 00:00 on the 1st of January every 2 years from 2026');
  });
});
