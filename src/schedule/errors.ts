import { CronstableError } from '../util/errors.ts';

/** A schedule expression that does not parse. The message is the engine text (with any dialect hint). */
export class ScheduleError extends CronstableError {
  constructor(message: string) {
    super('invalid-schedule', message);
    this.name = 'ScheduleError';
  }
}
