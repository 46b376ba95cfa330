import { CronstableError } from '../util/errors.ts';

/**
 * A schedule expression that does not parse (code `invalid-schedule`; the message is the engine text with any
 * dialect hint), or an unknown time zone (code `unknown-timezone`).
 */
export class ScheduleError extends CronstableError {
  constructor(message: string, code: 'invalid-schedule' | 'unknown-timezone' = 'invalid-schedule') {
    super(code, message);
    this.name = 'ScheduleError';
  }
}
