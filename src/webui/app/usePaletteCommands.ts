// The palette's page-wide sources: the views and tools, the core actions (views, table, refresh, settings) and
// each job's own. Registered once; each source reads the latest context when the palette opens.
import { useEffect, useMemo, useRef } from 'preact/hooks';
import type { Command } from '../../dashboard/commands.ts';
import {
  type CoreContext,
  coreCommands,
  type JobContext,
  jobCommands,
  type ViewContext,
  viewCommands,
} from '../../dashboard/palette.ts';
import type { ApiJob } from '../../dashboard/types.ts';
import { pageCommands } from '../chrome/pageCommands.ts';

/** The palette's list while it is `open` (read once per opening: the dashboard re-renders every second). */
export function usePaletteCommands(
  open: boolean,
  contexts: { views: ViewContext; core: CoreContext; jobs: readonly ApiJob[]; job: JobContext },
): Command[] {
  const latest = useRef(contexts);
  latest.current = contexts;
  useEffect(() => {
    const offViews = pageCommands.register('views', () => viewCommands(latest.current.views));
    const offCore = pageCommands.register('core', () => coreCommands(latest.current.core));
    const offJobs = pageCommands.register('jobs', () => jobCommands(latest.current.jobs, latest.current.job));
    return () => {
      offViews();
      offCore();
      offJobs();
    };
  }, []);
  return useMemo(() => (open ? pageCommands.all() : []), [open]);
}
