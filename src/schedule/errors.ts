import { CronstableError } from '../util/errors.ts';

/**
 * A schedule expression that does not parse (code `invalid-schedule`; the message is the engine text with any
 * dialect hint), an unknown time zone (code `unknown-timezone`), or an instant the engine cannot search from
 * (code `instant-out-of-range`: NaN, infinite, or outside the years 1970-2099 the calendar covers).
 */
export class ScheduleError extends CronstableError {
  constructor(
    message: string,
    code: 'invalid-schedule' | 'unknown-timezone' | 'instant-out-of-range' = 'invalid-schedule',
  ) {
    super(code, message);
    this.name = 'ScheduleError';
  }
}
