// The top-level `notify:` block (spec 09 §5.1) as the daemon uses it: the allow-list (absent:
// every event) and the report block merged over the built-in reporter defaults. The event
// templates (subject, body) are filled in by the notifier, where the job templates live too.
import { defaultReportBlock } from './builtins.ts';
import type { NotifySchemaOut } from './file-schema.ts';
import { mergeConfig } from './merge.ts';
import { NOTIFY_EVENTS } from './notify-events.ts';
import type { NotifySettings } from './types.ts';

/** The notify default fingerprint groups an event kind per DAG or node (spec 09 §5.3). */
export const NOTIFY_SENTRY_FINGERPRINT = ['cronstable', '{{ event }}', '{{ name }}'];

export function resolveNotify(raw: NotifySchemaOut): NotifySettings {
  const base = defaultReportBlock();
  base.sentry = { ...base.sentry!, fingerprint: [...NOTIFY_SENTRY_FINGERPRINT] };
  const allowed = raw.events ? new Set<string>(raw.events) : null;
  return {
    events: NOTIFY_EVENTS.filter((e) => !allowed || allowed.has(e)),
    report: mergeConfig(base, raw.report ?? {}),
  };
}
