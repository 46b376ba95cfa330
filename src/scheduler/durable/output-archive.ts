// Archived output (spec 03 §8.5, `archiveOutput`): the captured tail of a finished run as a
// `logs/<job>` record beside its ledger row, redacted of the run's staged secrets when the job asks.
import type { JobConfig } from '../../config/types.ts';
import { redactLines } from '../../exec/redact.ts';
import type { RunResult } from '../../exec/types.ts';
import type { Store } from '../../store/types.ts';
import type { RunRecord } from '../history.ts';
import { iso } from './context.ts';

/** Appends the run's output to `logs/<job>` (kept to `keep` records); nothing when the job keeps none. */
export async function archiveOutput(
  store: Store,
  keep: number,
  job: JobConfig,
  run: RunRecord,
  result: RunResult,
): Promise<void> {
  if (!job.archiveOutput || job.saveLimit === 0 || run.startedAt === null) return;
  const raw = result.ring.map((l) => l.line.replace(/\n$/, ''));
  const redacted = job.redactArchivedSecrets
    ? redactLines(raw, run.secrets ?? [])
    : { lines: raw, redacted: false };
  await store.append(
    `logs/${job.name}`,
    {
      finished_at: iso(run.finishedAt),
      outcome: run.outcome,
      exit_code: run.exitCode,
      redacted: redacted.redacted,
      dropped_lines: Math.max(0, result.publishedLines - result.ring.length),
      lines: result.ring.map((l, i) => ({ stream: l.stream, line: redacted.lines[i] ?? '' })),
    },
    { keep },
  );
}
