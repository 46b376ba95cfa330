// The live tab title (spec 10 §5.1, frames in src/dashboard/tabtitle.ts): recomputed on each answer and every
// 4 s step of its own timer, which keeps turning in a hidden tab (the title is what a background tab shows);
// `document.title` is written only when the text changes.
import { useEffect, useRef, useState } from 'preact/hooks';
import { FRAME_MS, tabTitle, titleBrand, titleFrames, trackRunning } from '../../dashboard/tabtitle.ts';
import type { ApiJob } from '../../dashboard/types.ts';

export interface TitleSource {
  jobs: ApiJob[] | null;
  fetchedAt: number;
  pollFailed: boolean;
  /** the cluster alert's title, null when there is none */
  alert: string | null;
  /** the cluster node's name, null when not clustered */
  nodeName: string | null;
}

export function useTabTitle(src: TitleSource): void {
  const [step, setStep] = useState(0);
  useEffect(() => {
    const timer = window.setInterval(() => setStep((s) => s + 1), FRAME_MS);
    return () => window.clearInterval(timer);
  }, []);
  const runningSince = useRef<ReadonlyMap<string, number>>(new Map());
  // A new condition starts its rotation at its first frame (the count before the names).
  const lead = useRef({ key: '', step: 0 });
  useEffect(() => {
    const now = Date.now();
    if (src.jobs !== null) runningSince.current = trackRunning(runningSince.current, src.jobs, now);
    const frames = titleFrames({
      jobs: src.jobs,
      fetchedAt: src.fetchedAt,
      pollFailed: src.pollFailed,
      clusterAlert: src.alert,
      runningSince: runningSince.current,
      now,
    });
    const key = frames.length > 1 ? `${frames.length}\n${frames[0]}` : '';
    if (key !== lead.current.key) lead.current = { key, step };
    const title = tabTitle(frames, titleBrand(src.nodeName), step - lead.current.step);
    if (document.title !== title) document.title = title;
  }, [src.jobs, src.fetchedAt, src.pollFailed, src.alert, src.nodeName, step]);
}
