// One hook's reports of one run, logged as the reference logs them (`Cron job <name>: reporting
// failure`), and never throwing into the caller: jobs and DAG task instances report through it alike.
import { errorText } from '../util/errors.ts';
import type { ReportHook, ReportLogger } from './types.ts';

const HOOK_TEXT: Record<ReportHook, string> = {
  failure: 'failure',
  permanentFailure: 'permanent failure',
  success: 'success',
};

export async function announceReport(
  log: Pick<ReportLogger, 'info' | 'error'>,
  hook: ReportHook,
  name: string,
  send: () => Promise<void>,
): Promise<void> {
  const what = HOOK_TEXT[hook];
  log.info(`Cron job ${name}: reporting ${what}`);
  try {
    await send();
  } catch (e) {
    log.error(`Problem reporting job ${name} ${what}: ${errorText(e)}`);
  }
}
