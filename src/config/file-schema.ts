// The config schema: every top-level section and every job, DAG and task key of specs 01-06.
// Types only; semantic rules (ranges, cross-references) live in the builders.
import { DST_VALUES } from '../schedule/dst.ts';
import { CLUSTER_BACKENDS } from '../util/backend-kinds.ts';
import { PRIORITY_LEVELS } from './launch-place.ts';
import { NOTIFY_EVENTS } from './notify-events.ts';
import { pushReporterSchema, pushSchema } from './push.ts';
import { slaSchema } from './sla.ts';
import {
  anyValue,
  bool,
  enumOf,
  finiteFloat,
  float,
  int,
  type MapOut,
  map,
  nullable,
  port,
  record,
  type Schema,
  seq,
  seqOrEmpty,
  str,
  union,
} from './validators.ts';
import { bonjourSchema } from './web-bonjour.ts';

/** `{value | fromFile | fromEnvVar}`: where a secret comes from (spec 01 §1.7). */
export const secretSource = map({
  value: nullable(str()),
  fromFile: nullable(str()),
  fromEnvVar: nullable(str()),
});

const strOrList = union(str(), seq(str()));

export const scheduleObject = map({
  second: str(),
  minute: str(),
  hour: str(),
  dayOfMonth: str(),
  month: str(),
  year: str(),
  dayOfWeek: str(),
});

const mailReporter = map(
  {
    from: nullable(str()),
    to: nullable(str()),
    smtpHost: nullable(str()),
    smtpPort: port(),
    tls: bool(),
    starttls: bool(),
    validate_certs: bool(),
    html: bool(),
    username: nullable(str()),
    password: nullable(secretSource),
    subject: nullable(str()),
    body: nullable(str()),
  },
  ['from', 'to'],
);

const webhookReporter = map({
  url: nullable(secretSource),
  method: str(),
  contentType: str(),
  headers: nullable(record(str())),
  body: nullable(str()),
  timeout: finiteFloat(),
});

const shellReporter = map({ command: strOrList, shell: str(), timeout: nullable(finiteFloat()) }, [
  'command',
]);

const sentryReporter = map({
  dsn: nullable(secretSource),
  fingerprint: seq(str()),
  level: str(),
  extra: nullable(record(str())),
  body: nullable(str()),
  environment: nullable(str()),
  maxStringLength: int(),
});

// Spec 09 §7.6: Windows-only, accepted everywhere so one config serves a mixed fleet.
const eventlogReporter = map({ enabled: bool(), source: str(), includeOutput: bool() });

export const reportBlock = map({
  eventlog: nullable(eventlogReporter),
  mail: nullable(mailReporter),
  sentry: nullable(sentryReporter),
  shell: nullable(shellReporter),
  webhook: nullable(webhookReporter),
  // Spec 10 §6.1: absent from the built-in defaults, so a job without it keeps its identity.
  push: pushReporterSchema,
});

const retryPolicy = map(
  {
    maximumRetries: int(),
    initialDelay: finiteFloat(),
    maximumDelay: finiteFloat(),
    backoffMultiplier: finiteFloat(),
  },
  ['maximumRetries', 'initialDelay', 'maximumDelay', 'backoffMultiplier'],
);

const failsWhen = map(
  { producesStdout: bool(), producesStderr: bool(), nonzeroReturn: bool(), always: bool() },
  ['producesStdout'],
);

const environment = seq(map({ key: str(), value: str() }, ['key', 'value']));
const secrets = seq(
  map({ name: str(), value: nullable(str()), fromFile: nullable(str()), fromEnvVar: nullable(str()) }, [
    'name',
  ]),
);
const statsd = map({ prefix: str(), host: str(), port: port() }, ['prefix', 'host', 'port']);
const monitorResources = union(bool(), map({ enabled: bool(), interval: finiteFloat(), history: int() }));
const userOrGroup = union(int(), str());

/** Keys that run a process: shared by jobs, `defaults:` and DAG tasks. */
const commandKeys = {
  shell: str(),
  environment,
  env_file: nullable(str()),
  captureStdout: bool(),
  captureStderr: bool(),
  saveLimit: int(),
  maxLineLength: int(),
  streamPrefix: str(),
  failsWhen: nullable(failsWhen),
  executionTimeout: nullable(finiteFloat()),
  killTimeout: finiteFloat(),
  user: nullable(userOrGroup),
  group: nullable(userOrGroup),
  statsd: nullable(statsd),
  monitorResources,
  secrets,
  stateAllowedScopes: seq(str()),
  // Spec 09 §3: empty = inherit the daemon's cwd; the five levels, `realtime` not offered.
  workingDirectory: nullable(str()),
  priority: enumOf(...PRIORITY_LEVELS),
};

/** Issue 15: which occurrence of a repeated wall time fires, and whether a skipped one fires shifted. */
const dstPolicy = map({ repeated: enumOf(...DST_VALUES.repeated), skipped: enumOf(...DST_VALUES.skipped) });

/** Every job key except name, command and schedule: what `defaults:` accepts. */
export const jobOptionKeys = {
  ...commandKeys,
  enabled: bool(),
  utc: bool(),
  timezone: nullable(str()),
  dst: dstPolicy,
  onFailure: nullable(map({ retry: nullable(retryPolicy), report: nullable(reportBlock) })),
  onPermanentFailure: nullable(map({ report: nullable(reportBlock) })),
  onSuccess: nullable(map({ report: nullable(reportBlock) })),
  // Spec 09 §2.1: jobs and `defaults:` only (tasks use commandKeys).
  sla: slaSchema,
  onLate: nullable(map({ report: nullable(reportBlock) })),
  concurrencyPolicy: enumOf('Allow', 'Forbid', 'Replace'),
  concurrencyScope: enumOf('node', 'cluster'),
  clusterPolicy: enumOf('Leader', 'PreferLeader', 'EveryNode'),
  onMissed: enumOf('skip', 'run-once', 'run-all'),
  startingDeadlineSeconds: nullable(int()),
  catchupJitterSeconds: int(),
  onlyIfLastSucceeded: bool(),
  archiveOutput: bool(),
  redactArchivedSecrets: bool(),
};

const scheduleValue = union(str(), scheduleObject);

export const jobSchema = map({ name: str(), command: strOrList, schedule: scheduleValue, ...jobOptionKeys }, [
  'name',
  'command',
  'schedule',
]);
export const defaultsSchema = map(jobOptionKeys);

export const taskSchema = map(
  {
    id: str(),
    type: enumOf('task', 'sensor', 'approval'),
    command: nullable(strOrList),
    dependsOn: seq(str()),
    triggerRule: enumOf('all_success', 'all_done'),
    retries: int(),
    retryDelaySeconds: finiteFloat(),
    expand: map({ fromTask: str(), key: str() }, ['fromTask', 'key']),
    pokeIntervalSeconds: finiteFloat(),
    pokeTimeoutSeconds: finiteFloat(),
    pokeJitterSeconds: finiteFloat(),
    onReject: enumOf('fail', 'skip'),
    ...commandKeys,
    // Spec 09 §4.3: report blocks only; a `retry` here is a schema error (attempts come from `retries`).
    onFailure: nullable(map({ report: nullable(reportBlock) })),
    onSuccess: nullable(map({ report: nullable(reportBlock) })),
  },
  ['id'],
);

export const dagSchema = map(
  {
    name: str(),
    // Blank is read as no tasks, which the DAG builder rejects as "needs at least one task" (spec 04 §2.4).
    tasks: seqOrEmpty(taskSchema),
    schedule: nullable(scheduleValue),
    timezone: nullable(str()),
    utc: bool(),
    dst: dstPolicy,
    onMissed: enumOf('skip', 'run-once', 'run-all'),
    startingDeadlineSeconds: nullable(int()),
    catchupJitterSeconds: int(),
    clusterPolicy: enumOf('Leader', 'PreferLeader', 'EveryNode'),
    enabled: bool(),
    retainRuns: int(),
  },
  ['name', 'tasks'],
);

const topology = enumOf('auto', 'single-node', 'shared');

export const stateSchema = map(
  {
    path: str(),
    topology,
    deploymentId: nullable(str()),
    maxRunsPerJob: int(),
    onStoreUnavailable: enumOf('degrade', 'fail-closed'),
    gcGraceSeconds: int(),
    maxOpsPerSecond: float(),
    slotTtlSeconds: float(),
    jobApi: map({
      enabled: bool(),
      listen: nullable(str()),
      maxValueBytes: int(),
      maxArtifactBytes: int(),
      lockTtlSeconds: float(),
      allowNonLoopbackBind: bool(),
      // Spec 10 §3.5: cert/key serve an https:// listen; ca is injected into jobs as CRONSTABLE_STATE_CACERT.
      tls: map({ cert: nullable(str()), key: nullable(str()), ca: nullable(str()) }),
    }),
  },
  ['path'],
);

const tlsFiles = map({ ca: str(), cert: str(), key: str() }, ['ca', 'cert', 'key']);
const peers = seq(map({ host: str() }, ['host']));

export const clusterSchema = map({
  backend: enumOf(...CLUSTER_BACKENDS),
  nodeName: nullable(str()),
  electLeader: bool(),
  distribution: enumOf('single-leader', 'spread'),
  connectTimeout: int(),
  interval: int(),
  driftAfter: int(),
  listen: str(),
  tls: tlsFiles,
  peers,
  observability: map({
    shareNodeStats: bool(),
    listen: str(),
    tls: tlsFiles,
    peers,
    nodeName: nullable(str()),
    interval: int(),
    driftAfter: int(),
    connectTimeout: int(),
  }),
  filesystem: map(
    { path: str(), electionName: str(), ttl: float(), deploymentId: nullable(str()), topology },
    ['path'],
  ),
  etcd: map({
    endpoints: seq(str()),
    electionName: str(),
    ttl: int(),
    username: nullable(str()),
    password: nullable(secretSource),
    tls: map({ ca: nullable(str()), cert: nullable(str()), key: nullable(str()) }),
  }),
  kubernetes: map({
    leaseName: str(),
    leaseNamespace: nullable(str()),
    clientLibrary: enumOf('auto', 'http', 'library'),
    leaseDurationSeconds: int(),
    renewDeadlineSeconds: int(),
    retryPeriodSeconds: int(),
    identity: nullable(str()),
    kubeconfig: nullable(str()),
    apiServer: nullable(str()),
  }),
});

export const webSchema = map(
  {
    // Blank is the only way to write the empty list that turns the server off (spec 06 §1).
    listen: seqOrEmpty(str()),
    headers: nullable(record(str())),
    authToken: nullable(secretSource),
    // Spec 10 §2.1: scoped tokens and the credential-less grant.
    authTokens: seq(
      map(
        {
          value: nullable(str()),
          fromFile: nullable(str()),
          fromEnvVar: nullable(str()),
          scopes: seq(enumOf('view', 'control', 'approve')),
          label: nullable(str()),
        },
        ['scopes'],
      ),
    ),
    anonymousScopes: seq(enumOf('view')),
    metrics: union(bool(), map({ enabled: bool(), public: bool(), durationBuckets: seq(float()) })),
    nodeHistory: union(bool(), map({ enabled: bool(), interval: finiteFloat(), points: int() })),
    ui: bool(),
    allowedOrigins: seq(str()),
    // Our addition (issue 14): extra Host names the API answers to when no authToken is set.
    allowedHosts: seq(str()),
    socketMode: str(),
    // Our addition (spec 06 §1.2 allows it): serve https:// listeners with these files.
    // Spec 10 §3.1: `clientCa` requires client certificates at the handshake (mutual TLS).
    // cert and key are checked together by webTlsProblems, so a half pair gets spec 10's text.
    tls: map({
      cert: nullable(str()),
      key: nullable(str()),
      ca: nullable(str()),
      clientCa: nullable(str()),
    }),
    // Spec 10 §6.6: advertise the web API on the LAN over mDNS.
    bonjour: bonjourSchema,
  },
  ['listen'],
);

export const loggingSchema = map(
  {
    version: int(),
    incremental: bool(),
    disable_existing_loggers: bool(),
    formatters: anyValue(),
    filters: anyValue(),
    handlers: anyValue(),
    loggers: anyValue(),
    root: anyValue(),
  },
  ['version'],
);

/** The MCP server (spec 07 §1.1); defaults are applied by resolveMcpSettings (config/mcp.ts). */
export const mcpSchema = nullable(
  map({
    enabled: bool(),
    readOnly: bool(),
    toolsets: seq(enumOf('observe', 'act', 'dags', 'state')),
    allowedOrigins: seq(str()),
    allowUnauthenticated: bool(),
    resources: bool(),
    prompts: bool(),
    instructions: nullable(str()),
    maxRows: int(),
    maxBodyBytes: int(),
  }),
);

/** Event notifications (spec 09 §5.1): a map, never blank; `events` absent means all four. */
export const notifySchema = map({ events: seq(enumOf(...NOTIFY_EVENTS)), report: nullable(reportBlock) });

export const fileSchema = map({
  jobs: seq(jobSchema),
  defaults: defaultsSchema,
  include: seq(str()),
  logging: loggingSchema,
  dags: seq(dagSchema),
  state: stateSchema,
  cluster: clusterSchema,
  web: webSchema,
  mcp: mcpSchema,
  notify: notifySchema,
  push: pushSchema,
});

type Out<S> = S extends Schema<infer T> ? T : never;
export type RawFile = Out<typeof fileSchema>;
export type RawJob = Out<typeof jobSchema>;
export type RawDefaults = Out<typeof defaultsSchema>;
export type RawDag = Out<typeof dagSchema>;
export type RawTask = Out<typeof taskSchema>;
export type StateSection = Out<typeof stateSchema>;
export type ClusterSection = Out<typeof clusterSchema>;
export type WebSection = Out<typeof webSchema>;
export type LoggingSection = Out<typeof loggingSchema>;
export type McpSection = Out<typeof mcpSchema>;
export type NotifySchemaOut = Out<typeof notifySchema>;
export type PushSection = Out<typeof pushSchema>;
export type ReportBlock = Out<typeof reportBlock>;
export type SecretSource = Out<typeof secretSource>;
export type ScheduleObject = Out<typeof scheduleObject>;
export type { MapOut };
