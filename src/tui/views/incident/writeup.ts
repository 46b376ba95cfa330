// The incident write-up (spec 08 §4.9, mitigate `y`): a Markdown note of the set, as of now, with the verdict;
// copied to the clipboard and written to ~/cronstable-incident-<stamp>.md.
import { writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { formatAge, formatUtcClock, parseIso } from '../../../dashboard/format.ts';
import type { ApiJob } from '../../../dashboard/types.ts';
import type { Controller } from '../../app/controller.ts';
import type { TuiState } from '../../app/state.ts';
import { flatten } from '../../text/sanitize.ts';
import { fileStamp } from '../../text/stamp.ts';
import { verdict } from '../board/chrome.ts';

/** The Markdown text. */
export function writeupText(s: TuiState, label: string, names: readonly string[]): string {
  const jobs = new Map<string, ApiJob>(s.data.jobs.map((j) => [j.name, j]));
  const lines = [`## cronstable incident — ${label}`, '', `As of ${formatUtcClock(s.now)} UTC:`, ''];
  for (const n of names) {
    const r = jobs.get(n)?.last_run;
    const reason = r?.fail_reason ? `, reason: ${flatten(r.fail_reason)}` : '';
    const at = parseIso(r?.finished_at);
    const age = at === null ? '—' : formatAge(Math.max(0, s.now - at));
    lines.push(`- \`${flatten(n)}\`: exit=${r?.exit_code ?? '?'}${reason}, finished ${age}`);
  }
  const v = verdict(s);
  if (v) lines.push('', `Verdict: ${v.head} — ${v.sub}`);
  return `${lines.join('\n')}\n`;
}

export function writeup(ctl: Controller, m: { label: string; names: readonly string[] }): void {
  const text = writeupText(ctl.state, m.label, m.names);
  const path = join(ctl.deps.home ?? homedir(), `cronstable-incident-${fileStamp(ctl.deps.now())}.md`);
  try {
    writeFileSync(path, text);
    ctl.copy(text, `writeup: ${path} (also sent to clipboard)`);
  } catch {
    ctl.copy(text, 'writeup sent to clipboard');
  }
}
