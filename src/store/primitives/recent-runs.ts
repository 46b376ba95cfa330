// The newest run rows of every `runs/<job>` stream in one bounded read (spec 03 §8.1): what a
// restarted daemon reloads into each job's in-memory history: the runs, and the synthetic rows of
// slots a pause held (outcome `skipped`, which `/runs` lists beside the runs, spec 10 §1.5). Runs and
// skips each get their own share, as the history keeps them in two rings: a long pause's skips never
// push the last real run (`last_run`) out. Other slot rows (skipped:overlap, missed...) carry no run
// id and are left out.
import type { StoredRecord } from '../types.ts';
import { type Ctx, parseBody, SCHEMA_VERSION } from './common.ts';

// One range scan of the (ns, stream, id) index; the window keeps each stream's newest runs and
// newest skips.
const RECENT_RUNS_SQL = `SELECT id, stream, written_at, writer, data FROM (
  SELECT id, stream, written_at, writer, data,
         ROW_NUMBER() OVER (PARTITION BY stream, skip ORDER BY id DESC) AS newest
  FROM (
    SELECT id, stream, written_at, writer, data,
           json_extract(data, '$.run_id') IS NULL AS skip
    FROM records
    WHERE ns = ? AND stream >= 'runs/' AND stream < 'runs0' AND schema_version = ?
      AND json_valid(data)
      AND (json_extract(data, '$.run_id') IS NOT NULL OR json_extract(data, '$.outcome') = 'skipped')
  )
) WHERE newest <= ? ORDER BY stream, id`;

interface Row {
  id: number;
  stream: string;
  written_at: number;
  writer: string;
  data: string;
}

/** Up to `perJob` newest run rows and `perJob` newest pause skips of every job, grouped by stream, oldest first within a job. */
export function recentRuns(c: Ctx, perJob: number): StoredRecord[] {
  const limit = Math.max(0, Math.floor(perJob));
  if (limit === 0) return [];
  const out: StoredRecord[] = [];
  for (const row of c.db.prepare(RECENT_RUNS_SQL).all<Row>(c.ns, SCHEMA_VERSION, limit)) {
    const body = parseBody(row.data);
    if (body.ok)
      out.push({
        id: row.id,
        stream: row.stream,
        writtenAt: row.written_at,
        writer: row.writer,
        data: body.value,
      });
  }
  return out;
}
