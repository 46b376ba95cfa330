// The four notify events (spec 09 §5.2) as values, their report context (§5.3) and the report
// block with the event defaults filled in. Pure: the notifier (notify.ts) does the sending.
import type { NotifyEventName } from '../config/notify-events.ts';
import type { ReportBlock } from '../config/types.ts';
import { withTemplateDefaults } from './template-defaults.ts';
import type { ReportContext } from './types.ts';

export type { NotifyEventName };

/** Events that carry the same key are sent once per fleet (while the claim lives). */
export interface FleetKey {
  key: string;
  ttlSeconds: number;
}

export interface NotifyEvent {
  event: NotifyEventName;
  /** The DAG, or the node for the cluster events. */
  name: string;
  subject: string;
  message: string;
  /** The event's own template variables (spec 09 §5.2 "extra vars"). */
  vars: Record<string, unknown>;
  /** null: a fact about one node, raised only by that node, so nothing to de-duplicate. */
  fleetKey: FleetKey | null;
}

/** How long a DAG event's claim keeps others from sending it again: runs rarely wait longer. */
const DAG_CLAIM_SECONDS = 7 * 86_400;
/** The fleet's quorum incident ends when a node regains quorum; this bounds a claim nobody ends. */
export const QUORUM_INCIDENT_SECONDS = 86_400;
export const QUORUM_INCIDENT_KEY = 'quorum_loss';

export function dagFailureEvent(
  dag: string,
  runKey: string,
  runId: string,
  failedTasks: string[],
): NotifyEvent {
  const tasks = [...failedTasks].sort();
  return {
    event: 'dag_failure',
    name: dag,
    subject: `DAG '${dag}' run ${runKey} failed`,
    message: `${tasks.length} task(s) failed: ${tasks.length > 0 ? tasks.join(', ') : '(no task detail)'}`,
    vars: { dag, run_key: runKey, run_id: runId, failed_tasks: tasks },
    fleetKey: { key: `dag_failure/${dag}/${runId}`, ttlSeconds: DAG_CLAIM_SECONDS },
  };
}

export function approvalWaitingEvent(
  dag: string,
  runKey: string,
  runId: string,
  taskKey: string,
): NotifyEvent {
  return {
    event: 'approval_waiting',
    name: dag,
    subject: `DAG '${dag}' run ${runKey} awaiting approval: ${taskKey}`,
    message: `Task ${taskKey} is an approval gate awaiting a decision; approve or reject it to let the run continue.`,
    vars: { dag, run_key: runKey, run_id: runId, taskkey: taskKey },
    fleetKey: { key: `approval_waiting/${dag}/${runId}/${taskKey}`, ttlSeconds: DAG_CLAIM_SECONDS },
  };
}

/** This node's scheduled-job leadership flipped; `reload`: a reload stopped the manager it led. */
export function leaderChangeEvent(
  node: string,
  acquired: boolean,
  leader: string | null,
  reload = false,
): NotifyEvent {
  const message = acquired
    ? 'This node is now the scheduled-job leader.'
    : reload
      ? 'This node is no longer the scheduled-job leader (leadership manager stopped for a config reload).'
      : 'This node is no longer the scheduled-job leader.';
  return {
    event: 'leader_change',
    name: node,
    subject: `node ${node} ${acquired ? 'acquired' : 'lost'} scheduled-job leadership`,
    message,
    vars: { role: acquired ? 'leader' : 'follower', is_leader: acquired, leader: reload ? null : leader },
    fleetKey: null,
  };
}

/** This node went from quorate to not quorate (or a reload stopped its quorate manager). */
export function quorumLossEvent(node: string, reload = false): NotifyEvent {
  return {
    event: 'quorum_loss',
    name: node,
    subject: `node ${node} left quorum`,
    message: reload
      ? 'This node left quorum (leadership manager stopped for a config reload); Leader jobs cannot run until it is rebuilt.'
      : 'No majority reachable; Leader jobs cannot run on this node until quorum is restored.',
    vars: { quorate: false },
    // One report per fleet incident: the first node to leave quorum sends, until one regains it.
    fleetKey: { key: QUORUM_INCIDENT_KEY, ttlSeconds: QUORUM_INCIDENT_SECONDS },
  };
}

/** The standard variables with run-shaped values null (spec 09 §5.3), plus the event's own. */
export function notifyContext(ev: NotifyEvent, host: string, shell: string): ReportContext {
  const runId = typeof ev.vars.run_id === 'string' ? ev.vars.run_id : null;
  return {
    name: ev.name,
    success: false,
    fail_reason: ev.message,
    stdout: null,
    stderr: null,
    exit_code: null,
    command: '',
    shell,
    environment: { HOSTNAME: host },
    cpu_seconds: null,
    cpu_user_seconds: null,
    cpu_system_seconds: null,
    max_rss_bytes: null,
    schedule: '',
    extra: {
      host,
      started_at: null,
      run_id: runId,
      event: ev.event,
      subject: ev.subject,
      message: ev.message,
      ...ev.vars,
    },
    extraEnv: {
      CRONSTABLE_HOST: host,
      CRONSTABLE_STARTED_AT: '',
      CRONSTABLE_RUN_ID: runId ?? '',
      CRONSTABLE_SLA_CHECK: '',
      CRONSTABLE_SLA_THRESHOLD_SECONDS: '',
      CRONSTABLE_SLA_OBSERVED_SECONDS: '',
      CRONSTABLE_LAST_SUCCESS_AT: '',
      // Spec 09 §5.4 "do better": a script can tell the events apart without parsing text.
      CRONSTABLE_EVENT: ev.event,
      CRONSTABLE_EVENT_SUBJECT: ev.subject,
    },
  };
}

const SUBJECT_LINE = 'cronstable {{ event }}: {{ subject }}';
export const NOTIFY_MAIL_SUBJECT = SUBJECT_LINE;
export const NOTIFY_MAIL_BODY = '{{ message }}';
export const NOTIFY_SENTRY_BODY = `${SUBJECT_LINE}\n{{ message }}`;
export const NOTIFY_WEBHOOK_BODY = `{"text": {% filter tojson %}${SUBJECT_LINE}\n{{ message }}\n{% endfilter %}}`;

/** The block with every template left to its default set to the event default (spec 09 §5.3). */
export function notifyReportBlock(block: ReportBlock): ReportBlock {
  return withTemplateDefaults(block, {
    mailSubject: NOTIFY_MAIL_SUBJECT,
    mailBody: NOTIFY_MAIL_BODY,
    sentryBody: NOTIFY_SENTRY_BODY,
    webhookBody: NOTIFY_WEBHOOK_BODY,
  });
}
