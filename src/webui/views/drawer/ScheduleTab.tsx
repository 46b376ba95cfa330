// Schedule tab: the plain-English schedule, advisories (dead schedule, runs may overlap, thundering herd, DST
// transition ahead, load-time lint findings), the next fires and the per-job `.ics` feed.
import { useMemo } from 'preact/hooks';
import {
  dstAdvisoryText,
  dstAhead,
  nameList,
  overlapAdvisory,
  thunderingHerd,
} from '../../../dashboard/advisories.ts';
import { civilInFrame, compileJob, nextFiresOf, viewerZone } from '../../../dashboard/engine.ts';
import { formatCivil, formatDuration, formatIn, formatLocalStamp } from '../../../dashboard/format.ts';
import type { ApiJob } from '../../../dashboard/types.ts';
import type { Api } from '../../io/api.ts';

interface Advice {
  level: 'warn' | 'note' | 'bad';
  title: string;
  text: string;
  id: string;
}

export function ScheduleTab({
  job,
  jobs,
  api,
  now,
}: {
  job: ApiJob;
  jobs: readonly ApiJob[];
  api: Api;
  now: number;
}) {
  const c = compileJob(job);
  const tick = Math.floor(now / 10_000); // advisories refresh every 10 s, not every second
  const fires = useMemo(() => nextFiresOf(c, now, 6), [c, Math.floor(now / 1000)]);
  const advice = useMemo(() => {
    const out: Advice[] = [];
    const t = tick * 10_000;
    if (c.error) out.push({ id: 'bad', level: 'bad', title: 'Unreadable schedule.', text: c.error });
    if (job.never_fires)
      out.push({
        id: 'dead',
        level: 'bad',
        title: 'Never fires.',
        text: 'The schedule has no future occurrence; fix it or disable the job.',
      });
    if (!job.enabled)
      out.push({ id: 'off', level: 'note', title: 'Disabled.', text: 'No fires are scheduled.' });
    const overlap = overlapAdvisory(c, job.history, t);
    if (overlap) {
      out.push({
        id: 'overlap',
        level: overlap.kind === 'overlap' ? 'warn' : 'note',
        title: overlap.kind === 'overlap' ? 'Runs may overlap.' : 'Runs pack tightly.',
        text: `The tightest gap between fires is ${formatDuration(overlap.minGapSeconds)}; the longest recent run took ${formatDuration(overlap.longestSeconds)}.`,
      });
    }
    if (job.enabled) {
      const candidates = jobs.map((j) => ({ name: j.name, enabled: j.enabled, compiled: compileJob(j) }));
      const herd = thunderingHerd({ name: job.name, enabled: true, compiled: c }, candidates, t);
      if (herd && herd.peers.length > 0) {
        const when = formatCivil(civilInFrame(c.frame, herd.minuteStart)).slice(11);
        const many = herd.peers.length >= 2;
        out.push({
          id: 'herd',
          level: many ? 'warn' : 'note',
          title: many ? 'Thundering herd.' : 'Shared start minute.',
          text: `${herd.peers.length + 1} jobs start in the ${when} minute together: this one and ${nameList(herd.peers)}${
            herd.capped ? ` (first ${herd.scanned} jobs scanned)` : ''
          }. ${many ? 'Stagger them with a minute offset or H to spread the load.' : ''}`.trim(),
        });
      }
    }
    const dst = dstAhead(c, t);
    if (dst) {
      out.push({
        id: 'dst',
        level: 'warn',
        title: 'DST transition ahead.',
        text: dstAdvisoryText(dst, c.dst),
      });
    }
    for (const f of job.schedule_findings ?? []) {
      out.push({
        id: `lint-${f.code}-${f.message}`,
        level: f.level === 'warning' ? 'warn' : 'note',
        title: `${f.code}:`,
        text: f.message,
      });
    }
    return out;
  }, [job, jobs, c, tick]);

  const viewer = viewerZone();
  const showLocal =
    c.frame.kind === 'utc' ? viewer !== 'UTC' && viewer !== 'Etc/UTC' : c.frame.zone !== viewer;
  const ics = api.icsHref(`/jobs/${encodeURIComponent(job.name)}/calendar.ics`);
  return (
    <div class="schedtab">
      <h3 class="sched-title">{c.reboot ? 'Once, when the daemon starts' : c.description}</h3>
      <div class="sched-line">
        schedule <code class="sched">{job.schedule}</code>
        {job.schedule_resolved && job.schedule_resolved !== job.schedule && (
          <>
            {' '}
            → <code class="sched">{job.schedule_resolved}</code>
          </>
        )}
        <span class="muted"> · times shown in </span>
        <b>{c.frameLabel}</b>
        {!c.reboot && (
          <a class="icslink" href={ics} download={`${job.name}.ics`} data-testid="ics-link">
            ⤓ .ics
          </a>
        )}
      </div>
      <ul class="advice" aria-label="Advisories" data-testid="advisories">
        {advice.map((a) => (
          <li key={a.id} class={`advice-item advice-${a.level}`} data-advice={a.id}>
            <span class="advice-icon" aria-hidden="true">
              {a.level === 'note' ? 'ℹ' : '⚠'}
            </span>
            <span>
              <strong>{a.title}</strong> {a.text}
            </span>
          </li>
        ))}
      </ul>
      <h4 class="section-label">Next runs</h4>
      {fires.length === 0 ? (
        <p class="empty">{c.reboot ? 'Runs once at daemon start (@reboot).' : 'No upcoming fires.'}</p>
      ) : (
        <ol class="nextlist" data-testid="next-fires">
          {fires.map((f) => (
            <li key={f}>
              <span class="nextlist-at">{formatCivil(civilInFrame(c.frame, f), c.hasSeconds)}</span>
              <span class="nextlist-local muted" title="your browser's time">
                {showLocal ? `${formatLocalStamp(f)} your time` : ''}
              </span>
              <span class="nextlist-in">{formatIn(f - now)}</span>
            </li>
          ))}
        </ol>
      )}
      <dl class="kv">
        <dt>enabled</dt>
        <dd>{job.enabled ? 'yes' : 'no'}</dd>
        <dt>frame</dt>
        <dd>{c.frameLabel}</dd>
        {job.clusterPolicy && (
          <>
            <dt>cluster</dt>
            <dd>{job.clusterPolicy}</dd>
          </>
        )}
        <dt>output</dt>
        <dd>
          {job.captureStdout === false && job.captureStderr === false
            ? 'not captured'
            : `captured: ${[job.captureStdout !== false && 'stdout', job.captureStderr !== false && 'stderr'].filter(Boolean).join(' + ')}`}
        </dd>
        <dt>command</dt>
        <dd>
          <code class="cmdblock">{job.command}</code>
        </dd>
      </dl>
    </div>
  );
}
