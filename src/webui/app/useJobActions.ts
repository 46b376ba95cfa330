// Run and cancel from the dashboard (`r`, `x`, row buttons, the palette): one POST, a toast with the outcome
// (a 401 opens the token prompt instead), and a refresh a moment later so the row shows the change.
import { useCallback } from 'preact/hooks';
import { type ApiPause, pauseAction, pauseToast } from '../../dashboard/paused.ts';
import type { Toast } from '../chrome/Toasts.tsx';
import { type Api, HttpError } from '../io/api.ts';
import { copyText } from '../io/hooks.ts';

export interface JobActions {
  runJob(name: string): void;
  cancelJob(name: string): void;
  copyCommand(job: { name: string; command: string }): void;
  /** Pause for an hour (an empty body) or resume a paused job (spec 10 §1.5); inert without `paused`. */
  togglePause(job: { name: string; paused?: ApiPause | null }): void;
}

export function useJobActions(
  api: Api,
  refreshNow: () => void,
  toast: (text: string, tone?: Toast['tone']) => void,
): JobActions {
  const post = useCallback(
    async (name: string, verb: 'start' | 'cancel') => {
      try {
        const r = await api.post(`/jobs/${encodeURIComponent(name)}/${verb}`);
        if (r.ok) toast(verb === 'start' ? `▶ started ${name}` : `■ cancelling ${name}`, 'ok');
        else if (r.status !== 401) toast(r.text || `${verb} failed: HTTP ${r.status}`, 'bad');
      } catch (err) {
        if (!(err instanceof HttpError && err.status === 401)) toast(`${verb} failed: ${String(err)}`, 'bad');
      }
      window.setTimeout(refreshNow, 350);
    },
    [api, refreshNow],
  );
  const runJob = useCallback((name: string) => void post(name, 'start'), [post]);
  const cancelJob = useCallback((name: string) => void post(name, 'cancel'), [post]);
  const copyCommand = useCallback(
    (job: { name: string; command: string }) =>
      void copyText(job.command).then((ok) => ok && toast(`copied the command of ${job.name}`, 'ok')),
    [],
  );
  const togglePause = useCallback(
    (job: { name: string; paused?: ApiPause | null }) => {
      if (job.paused === undefined) return;
      const action = pauseAction(job);
      void api
        .post(`/jobs/${encodeURIComponent(job.name)}/${action}`)
        .then((r) => r.status)
        .catch((err) => (err instanceof HttpError ? err.status : 0))
        .then((status) => {
          const t = pauseToast(action, job.name, status);
          if (!t.needsToken) toast(t.text, t.ok ? 'ok' : 'bad');
          window.setTimeout(refreshNow, 350);
        });
    },
    [api, refreshNow],
  );
  return { runJob, cancelJob, copyCommand, togglePause };
}
