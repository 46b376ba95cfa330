// The plaintext a phone alert carries (spec 10 §6.3), as a type both the reporter contract and the
// payload builder read.

export type AlertKind = 'success' | 'failure' | 'sla' | 'event' | 'test';

/** The plaintext fields; absent ones are left out of the JSON. */
export interface PushPlaintext {
  v: 1;
  kind: AlertKind;
  name: string;
  success: boolean;
  host: string;
  ts: string;
  run_id?: string;
  schedule?: string;
  started_at?: string;
  exit_code?: number;
  fail_reason?: string;
  log_tail?: string;
  event?: string;
  subject?: string;
  message?: string;
  dag?: string;
  run_key?: string;
  taskkey?: string;
  role?: string;
  leader?: string;
  sla_check?: string;
  threshold_seconds?: number;
  observed_seconds?: number;
  last_success_at?: string;
}
