// The mitigate console: pick failing / running jobs, start or cancel them one POST at a time a few hundred ms
// apart, abort mid-way, then copy a Markdown summary of what was done. "▶ run failing" opens it with every
// failing job picked and asks for confirmation before the first POST.
import { useEffect, useLayoutEffect, useMemo, useRef, useState } from 'preact/hooks';
import {
  type Candidate,
  DEFAULT_STAGGER_MS,
  type MitigateVerb,
  mitigationCandidates,
  mitigationMarkdown,
  runStaggered,
  STAGGER_CHOICES,
  type StaggerOutcome,
  type StepResult,
} from '../../../dashboard/mitigate.ts';
import type { ApiJob } from '../../../dashboard/types.ts';
import { Dialog } from '../../chrome/Dialog.tsx';
import type { Api } from '../../io/api.ts';
import { copyText } from '../../io/hooks.ts';

type Phase = { kind: 'pick' } | { kind: 'confirm'; verb: MitigateVerb } | { kind: 'run' } | { kind: 'done' };

export function MitigateConsole({
  jobs,
  api,
  node,
  runFailing,
  onDone,
  onClose,
}: {
  jobs: readonly ApiJob[];
  api: Api;
  node: string | null;
  /** opened from "▶ run failing": failing jobs picked, straight to the confirmation */
  runFailing: boolean;
  /** after the last POST (the dashboard refreshes) */
  onDone(): void;
  onClose(): void;
}) {
  // The candidates are frozen when the console opens, so the list does not shift under the operator's hand.
  const [candidates] = useState<Candidate[]>(() => mitigationCandidates(jobs));
  const [picked, setPicked] = useState<Set<string>>(
    () => new Set(candidates.filter((c) => c.state === 'failing').map((c) => c.name)),
  );
  const [gapMs, setGapMs] = useState<number>(DEFAULT_STAGGER_MS);
  const [phase, setPhase] = useState<Phase>(
    runFailing ? { kind: 'confirm', verb: 'start' } : { kind: 'pick' },
  );
  const [steps, setSteps] = useState<Array<{ name: string; verb: MitigateVerb }>>([]);
  const [results, setResults] = useState<StepResult[]>([]);
  const [summary, setSummary] = useState('');
  const [copied, setCopied] = useState(false);
  const abort = useRef<AbortController | null>(null);
  useEffect(() => () => abort.current?.abort(), []);

  const startable = useMemo(
    () => candidates.filter((c) => picked.has(c.name) && c.state === 'failing'),
    [candidates, picked],
  );
  const cancellable = useMemo(
    () => candidates.filter((c) => picked.has(c.name) && c.state === 'running'),
    [candidates, picked],
  );
  // Each phase swaps the buttons: move focus to the new phase's main control so the keyboard is never lost.
  // A layout effect, as in Dialog: a plain effect waits for the next frame, and a key pressed in between
  // (Enter on the abort button that just disappeared) would land on the page body.
  const root = useRef<HTMLDivElement>(null);
  useLayoutEffect(() => {
    root.current?.querySelector<HTMLElement>('[data-autofocus]')?.focus({ preventScroll: true });
  }, [phase.kind]);

  const go = async (verb: MitigateVerb): Promise<void> => {
    const list = (verb === 'start' ? startable : cancellable).map((c) => ({ name: c.name, verb }));
    if (list.length === 0) return;
    const ctrl = new AbortController();
    abort.current = ctrl;
    setSteps(list);
    setResults([]);
    setPhase({ kind: 'run' });
    const startedAt = Date.now();
    const outcome: StaggerOutcome = await runStaggered(list, {
      gapMs,
      signal: ctrl.signal,
      act: (name, v) => api.post(`/jobs/${encodeURIComponent(name)}/${v}`),
      onStep: (r) => setResults((old) => [...old, r]),
    });
    setSummary(mitigationMarkdown({ outcome, gapMs, startedAt, finishedAt: Date.now(), node }));
    setPhase({ kind: 'done' });
    onDone();
  };

  const toggle = (name: string): void =>
    setPicked((old) => {
      const next = new Set(old);
      if (next.has(name)) next.delete(name);
      else next.add(name);
      return next;
    });

  const title = runFailing ? 'Run failing jobs' : 'Mitigate';
  return (
    <Dialog title={title} onClose={onClose} wide>
      <div ref={root} class="mc" data-testid="mitigate" data-phase={phase.kind}>
        {phase.kind === 'pick' && (
          <>
            {candidates.length === 0 ? (
              <p class="muted">Nothing is failing or running right now.</p>
            ) : (
              <table class="mc-table">
                <caption class="sr-only">Failing and running jobs</caption>
                <thead>
                  <tr>
                    <th scope="col">pick</th>
                    <th scope="col">job</th>
                    <th scope="col">state</th>
                    <th scope="col">detail</th>
                  </tr>
                </thead>
                <tbody>
                  {candidates.map((c, i) => (
                    <tr key={c.name} data-job={c.name}>
                      <td>
                        <input
                          type="checkbox"
                          checked={picked.has(c.name)}
                          onChange={() => toggle(c.name)}
                          aria-label={`pick ${c.name}`}
                          data-autofocus={i === 0 ? true : undefined}
                        />
                      </td>
                      <td class="mc-name">{c.name}</td>
                      <td>
                        <span class={`mc-state mc-${c.state}`}>{c.state}</span>
                      </td>
                      <td class="muted">{c.detail}</td>
                    </tr>
                  ))}
                </tbody>
              </table>
            )}
            <div class="mc-bar">
              <StaggerSelect value={gapMs} onChange={setGapMs} />
              <span class="toolbar-spacer" />
              <button
                type="button"
                class="btn btn-run"
                disabled={startable.length === 0}
                onClick={() => setPhase({ kind: 'confirm', verb: 'start' })}
                data-testid="mc-start"
              >
                ▶ start {startable.length} failing
              </button>
              <button
                type="button"
                class="btn btn-stop"
                disabled={cancellable.length === 0}
                onClick={() => setPhase({ kind: 'confirm', verb: 'cancel' })}
                data-testid="mc-cancel"
              >
                ■ cancel {cancellable.length} running
              </button>
            </div>
          </>
        )}
        {phase.kind === 'confirm' && (
          <Confirm
            verb={phase.verb}
            names={(phase.verb === 'start' ? startable : cancellable).map((c) => c.name)}
            gapMs={gapMs}
            onGap={setGapMs}
            onYes={() => void go(phase.verb)}
            onNo={() => (runFailing ? onClose() : setPhase({ kind: 'pick' }))}
          />
        )}
        {(phase.kind === 'run' || phase.kind === 'done') && (
          <>
            <ol class="mc-progress" aria-live="polite" data-testid="mc-progress">
              {steps.map((s, i) => {
                const r = results[i];
                const state = r ? (r.ok ? 'ok' : 'bad') : phase.kind === 'done' ? 'skipped' : 'waiting';
                return (
                  <li key={s.name} class={`mc-step mc-step-${state}`} data-job={s.name} data-state={state}>
                    <span class="mc-step-mark" aria-hidden="true">
                      {state === 'ok' ? '✓' : state === 'bad' ? '✕' : state === 'skipped' ? '–' : '…'}
                    </span>
                    {s.verb} <b>{s.name}</b>
                    <span class="muted">
                      {state === 'bad'
                        ? ` — ${r!.detail}`
                        : state === 'skipped'
                          ? ' — not sent (aborted)'
                          : ''}
                    </span>
                  </li>
                );
              })}
            </ol>
            {phase.kind === 'run' ? (
              <div class="mc-bar">
                <span class="muted">
                  {results.length} of {steps.length} sent, {gapMs} ms apart
                </span>
                <span class="toolbar-spacer" />
                <button
                  type="button"
                  class="btn btn-stop"
                  onClick={() => abort.current?.abort()}
                  data-autofocus
                  data-testid="mc-abort"
                >
                  ■ abort
                </button>
              </div>
            ) : (
              <div class="mc-summary">
                <label class="muted" for="mc-md">
                  Summary (Markdown)
                </label>
                <textarea id="mc-md" readOnly rows={8} value={summary} data-testid="mc-summary" />
                <div class="mc-bar">
                  <button
                    type="button"
                    class="btn btn-primary"
                    data-autofocus
                    onClick={async () => setCopied(await copyText(summary))}
                    data-testid="mc-copy"
                  >
                    copy summary
                  </button>
                  <span class="muted mc-copied" aria-live="polite">
                    {copied ? 'copied' : ''}
                  </span>
                  <span class="toolbar-spacer" />
                  <button type="button" class="btn" onClick={onClose}>
                    close
                  </button>
                </div>
              </div>
            )}
          </>
        )}
      </div>
    </Dialog>
  );
}

function StaggerSelect({ value, onChange }: { value: number; onChange(v: number): void }) {
  return (
    <label class="select">
      <span class="muted">stagger</span>
      <select
        value={String(value)}
        onChange={(e) => onChange(Number((e.currentTarget as HTMLSelectElement).value))}
        data-testid="mc-gap"
      >
        {STAGGER_CHOICES.map((ms) => (
          <option key={ms} value={String(ms)}>
            {ms} ms
          </option>
        ))}
      </select>
    </label>
  );
}

function Confirm({
  verb,
  names,
  gapMs,
  onGap,
  onYes,
  onNo,
}: {
  verb: MitigateVerb;
  names: string[];
  gapMs: number;
  onGap(v: number): void;
  onYes(): void;
  onNo(): void;
}) {
  if (names.length === 0) {
    return (
      <div class="mc-confirm">
        <p>
          No job to {verb}: nothing is {verb === 'start' ? 'failing' : 'running'}.
        </p>
        <div class="mc-bar">
          <button type="button" class="btn" onClick={onNo} data-autofocus>
            close
          </button>
        </div>
      </div>
    );
  }
  return (
    <div class="mc-confirm" data-testid="mc-confirm">
      <p>
        {verb === 'start' ? 'Start' : 'Cancel'} <b>{names.length}</b> job(s), one every {gapMs} ms:
      </p>
      <ul class="mc-names">
        {names.map((n) => (
          <li key={n}>{n}</li>
        ))}
      </ul>
      <div class="mc-bar">
        <StaggerSelect value={gapMs} onChange={onGap} />
        <span class="toolbar-spacer" />
        <button type="button" class="btn" onClick={onNo}>
          back
        </button>
        <button
          type="button"
          class={`btn ${verb === 'start' ? 'btn-run' : 'btn-stop'}`}
          onClick={onYes}
          data-autofocus
          data-testid="mc-yes"
        >
          {verb === 'start' ? '▶' : '■'} {verb} {names.length} job(s)
        </button>
      </div>
    </div>
  );
}
