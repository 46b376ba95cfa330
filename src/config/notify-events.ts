// The events a top-level `notify:` block can allow (spec 09 §5.2). Its own module so the schema,
// the loaded config and the daemon's notifier read one list.
export const NOTIFY_EVENTS = ['dag_failure', 'approval_waiting', 'leader_change', 'quorum_loss'] as const;
export type NotifyEventName = (typeof NOTIFY_EVENTS)[number];
