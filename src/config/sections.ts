// Load-time rules of the singleton sections: state (spec 03 §1), cluster (spec 05 §2),
// web (spec 06 §1) and logging (spec 01 §1.9).

import { CLUSTER_BACKENDS, LEASE_BACKENDS } from '../util/backend-kinds.ts';
import { type ConfigIssue, quote, type SourcePos } from './errors.ts';
import type { ClusterSection, LoggingSection, StateSection, WebSection } from './file-schema.ts';
import { jobApiCleartextWarning, jobApiTlsProblems, parseJobApiListen } from './jobapi-listen.ts';
import { Locator } from './locate.ts';
import { webTlsProblems } from './tighten.ts';
import type { LoadWarning } from './types.ts';
import { bonjourProblems } from './web-bonjour.ts';
import { checkWebTokens } from './web-tokens.ts';

type Problem = (keys: string[], message: string) => void;

function problems(section: object, root: string, fallback: SourcePos, issues: ConfigIssue[]): Problem {
  const loc = new Locator([section], fallback);
  return (keys, message) => issues.push(loc.issue(keys, `${root}: ${message}`));
}

const LOOPBACK = /^(localhost|127(\.\d{1,3}){3}|::1|\[::1\])$/;

export function checkState(
  state: StateSection,
  fallback: SourcePos,
  issues: ConfigIssue[],
  warnings: LoadWarning[] = [],
): void {
  const bad = problems(state, 'state', fallback, issues);
  if (state.path.trim() === '') bad(['path'], 'path must not be empty');
  const grace = state.gcGraceSeconds;
  if (grace !== undefined && grace > 0 && grace < 86400)
    bad(['gcGraceSeconds'], `gcGraceSeconds must be <= 0 or >= 86400, got ${grace}`);
  const ops = state.maxOpsPerSecond;
  if (ops !== undefined && !(Number.isFinite(ops) && ops >= 0))
    bad(['maxOpsPerSecond'], 'maxOpsPerSecond must be a finite number >= 0');
  const slot = state.slotTtlSeconds;
  if (slot !== undefined && !(Number.isFinite(slot) && slot >= 5))
    bad(['slotTtlSeconds'], 'slotTtlSeconds must be a finite number >= 5');
  const api = state.jobApi;
  if (!api) return;
  const parsed = api.listen ? parseJobApiListen(api.listen) : null;
  if (typeof parsed === 'string') bad(['jobApi', 'listen'], parsed);
  else if (parsed && !LOOPBACK.test(parsed.host) && !api.allowNonLoopbackBind)
    bad(
      ['jobApi', 'listen'],
      `jobApi.listen host ${quote(parsed.host)} is not a loopback address; the endpoint carries bearer tokens and secrets in plain HTTP (set allowNonLoopbackBind: true to allow it)`,
    );
  const listen = typeof parsed === 'string' ? null : parsed;
  if (typeof parsed !== 'string')
    for (const message of jobApiTlsProblems(api, listen)) bad(['jobApi', 'tls'], message);
  const cleartext = listen && jobApiCleartextWarning(api, listen, (h) => LOOPBACK.test(h));
  if (cleartext) warnings.push({ level: 'warning', logger: 'cronstable', message: cleartext });
  if (api.maxValueBytes !== undefined && api.maxValueBytes < 0)
    bad(['jobApi', 'maxValueBytes'], 'jobApi.maxValueBytes must be >= 0');
  if (api.maxArtifactBytes !== undefined && api.maxArtifactBytes < 0)
    bad(['jobApi', 'maxArtifactBytes'], 'jobApi.maxArtifactBytes must be >= 0');
  if (api.lockTtlSeconds !== undefined && !(Number.isFinite(api.lockTtlSeconds) && api.lockTtlSeconds >= 5))
    bad(['jobApi', 'lockTtlSeconds'], 'jobApi.lockTtlSeconds must be a finite number >= 5');
}

/** `host:port`, port 1-65535, IPv6 bracketed. */
export function checkHostPort(text: string): string | null {
  const m = /^(\[[0-9a-fA-F:.]+\]|[^:[\]\s]+):(\d+)$/.exec(text);
  if (!m) {
    if ((text.match(/:/g) ?? []).length > 1 && !text.startsWith('['))
      return `${quote(text)} must be host:port; an IPv6 address must be bracketed, e.g. [::1]:8443`;
    return `${quote(text)} must be host:port`;
  }
  const port = Number(m[2]);
  if (port < 1 || port > 65535) return `${quote(text)}: port must be between 1 and 65535`;
  return null;
}

const RFC1123_SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;
const RFC1123_LABEL = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;

export function checkCluster(
  cluster: ClusterSection,
  fallback: SourcePos,
  issues: ConfigIssue[],
  warnings: LoadWarning[],
  built: readonly string[] = CLUSTER_BACKENDS,
): void {
  const bad = problems(cluster, 'cluster', fallback, issues);
  const warn = (message: string) => warnings.push({ level: 'warning', logger: 'cronstable', message });
  const backend = cluster.backend ?? 'gossip';
  if (!built.includes(backend))
    bad(
      ['backend'],
      `the ${backend} backend is not available in this build (available: ${built.join(', ') || 'none'}); without it every node would run every Leader job`,
    );
  for (const sub of LEASE_BACKENDS) {
    if (cluster[sub] !== undefined && sub !== backend)
      bad([sub], `a '${sub}' block has no effect with backend: ${backend}; remove it or set backend: ${sub}`);
  }
  for (const key of ['connectTimeout', 'interval'] as const) {
    const v = cluster[key];
    if (v !== undefined && v <= 0) bad([key], `${key} must be > 0`);
  }
  if (cluster.driftAfter !== undefined && cluster.driftAfter < 1)
    bad(['driftAfter'], 'driftAfter must be >= 1');
  const electLeader = backend === 'gossip' ? (cluster.electLeader ?? false) : true;
  if (backend !== 'gossip' && cluster.distribution === 'spread')
    bad(['distribution'], `distribution: spread is only supported by the gossip backend, not ${backend}`);
  if (backend === 'gossip') {
    const missing = (['listen', 'tls', 'peers'] as const).filter((k) => cluster[k] === undefined);
    if (missing.length > 0) bad([], `the gossip backend requires ${missing.map((k) => `'${k}'`).join(', ')}`);
    if (cluster.listen !== undefined) {
      const err = checkHostPort(cluster.listen);
      if (err) bad(['listen'], `listen ${err}`);
    }
    const hosts = new Set<string>();
    (cluster.peers ?? []).forEach((p, i) => {
      const err = checkHostPort(p.host);
      if (err) bad(['peers', String(i), 'host'], `peers[${i}].host ${err}`);
      if (p.host !== cluster.listen) hosts.add(p.host);
    });
    const n = hosts.size + 1;
    if (electLeader && cluster.peers !== undefined && n === 2)
      bad(
        ['electLeader'],
        'electLeader: true with a 2-node cluster is not allowed (quorum 2-of-2 is worse than one node)',
      );
    if (electLeader && n > 2 && n % 2 === 0)
      warn(
        `cluster: electLeader with an even cluster size (${n}) tolerates no more failures than ${n - 1} nodes`,
      );
    if (!electLeader && cluster.distribution === 'spread')
      warn('cluster: distribution: spread has no effect without electLeader: true');
    const obs = cluster.observability;
    if (obs) {
      const extra = (
        ['listen', 'tls', 'peers', 'nodeName', 'interval', 'driftAfter', 'connectTimeout'] as const
      ).filter((k) => obs[k] !== undefined);
      if (extra.length > 0)
        bad(
          ['observability'],
          `observability under the gossip backend may only carry shareNodeStats, not ${extra.join(', ')}`,
        );
    }
  } else {
    if (cluster.observability) {
      const obs = cluster.observability;
      const missing = (['listen', 'tls', 'peers'] as const).filter((k) => obs[k] === undefined);
      if (missing.length > 0)
        bad(
          ['observability'],
          `observability on a lease backend requires ${missing.map((k) => `'${k}'`).join(', ')}`,
        );
    }
    if (cluster.electLeader === false)
      warn(`cluster: electLeader: false is ignored by the ${backend} backend`);
  }
  if (backend === 'filesystem') {
    const fs = cluster.filesystem;
    if (!fs) bad([], "backend: filesystem requires a 'filesystem' block with a path");
    else {
      if (fs.path.trim() === '') bad(['filesystem', 'path'], 'filesystem.path must not be empty');
      if (fs.electionName !== undefined && fs.electionName === '')
        bad(['filesystem', 'electionName'], 'filesystem.electionName must not be empty');
      if (fs.ttl !== undefined && !(Number.isFinite(fs.ttl) && fs.ttl >= 3))
        bad(['filesystem', 'ttl'], 'filesystem.ttl must be a finite number >= 3');
    }
  }
  if (backend === 'etcd') {
    const etcd = cluster.etcd ?? {};
    const endpoints = etcd.endpoints ?? ['http://127.0.0.1:2379'];
    if (endpoints.length === 0) bad(['etcd', 'endpoints'], 'etcd.endpoints needs at least one endpoint');
    endpoints.forEach((e, i) => {
      let url: URL | null = null;
      try {
        url = new URL(e);
      } catch {
        /* reported below */
      }
      if (!url || (url.protocol !== 'http:' && url.protocol !== 'https:'))
        bad(
          ['etcd', 'endpoints', String(i)],
          `etcd.endpoints[${i}] ${quote(e)} must be an http(s)://host[:port] URL`,
        );
      else if (url.username || url.password)
        bad(
          ['etcd', 'endpoints', String(i)],
          `etcd.endpoints[${i}] must not carry credentials; use etcd.username/password`,
        );
    });
    const https = endpoints.some((e) => e.startsWith('https://'));
    if (etcd.ttl !== undefined && etcd.ttl < 3) bad(['etcd', 'ttl'], 'etcd.ttl must be >= 3');
    const ttl = etcd.ttl ?? 15;
    if ((ttl - Math.max(1, ttl / 3) - 1) / 5 < 1)
      warn(`cluster: etcd.ttl ${ttl} leaves each renew request under 1 s`);
    const pw = etcd.password;
    const sources = pw ? [pw.value, pw.fromFile, pw.fromEnvVar].filter((v) => v) : [];
    if (pw && sources.length !== 1)
      bad(['etcd', 'password'], 'etcd.password needs exactly one of value, fromFile, fromEnvVar');
    if (etcd.username && (!pw || !https))
      bad(['etcd', 'username'], 'etcd.username requires a password and https:// endpoints');
    const tls = etcd.tls;
    if (tls) {
      if (Boolean(tls.cert) !== Boolean(tls.key))
        bad(['etcd', 'tls'], 'etcd.tls.cert and etcd.tls.key go together');
      if ((tls.ca || tls.cert) && !https)
        bad(['etcd', 'tls'], 'etcd.tls is set but no endpoint uses https://');
    }
  }
  if (backend === 'kubernetes') {
    const k = cluster.kubernetes ?? {};
    if (k.leaseName !== undefined && !(k.leaseName.length <= 253 && RFC1123_SUBDOMAIN.test(k.leaseName)))
      bad(
        ['kubernetes', 'leaseName'],
        `kubernetes.leaseName ${quote(k.leaseName)} must be an RFC 1123 subdomain`,
      );
    if (k.leaseNamespace && !(k.leaseNamespace.length <= 63 && RFC1123_LABEL.test(k.leaseNamespace)))
      bad(
        ['kubernetes', 'leaseNamespace'],
        `kubernetes.leaseNamespace ${quote(k.leaseNamespace)} must be an RFC 1123 label`,
      );
    if (k.apiServer && !k.apiServer.startsWith('https://'))
      bad(['kubernetes', 'apiServer'], 'kubernetes.apiServer must be an https:// URL');
    const duration = k.leaseDurationSeconds ?? 15;
    const renew = k.renewDeadlineSeconds ?? 10;
    const retry = k.retryPeriodSeconds ?? 2;
    if (!(renew > 0))
      bad(['kubernetes', 'renewDeadlineSeconds'], 'kubernetes.renewDeadlineSeconds must be > 0');
    else if (!(duration > renew))
      bad(
        ['kubernetes', 'leaseDurationSeconds'],
        'kubernetes.leaseDurationSeconds must be > renewDeadlineSeconds',
      );
    else if (!(retry > 0 && retry < renew))
      bad(
        ['kubernetes', 'retryPeriodSeconds'],
        'kubernetes.retryPeriodSeconds must be > 0 and < renewDeadlineSeconds',
      );
    else if (!(renew + retry < duration))
      bad(
        ['kubernetes'],
        'kubernetes: renewDeadlineSeconds + retryPeriodSeconds must be < leaseDurationSeconds',
      );
  }
}

export function checkWeb(web: WebSection, fallback: SourcePos, issues: ConfigIssue[]): void {
  const bad = problems(web, 'web', fallback, issues);
  if (typeof web.metrics === 'object' && web.metrics.durationBuckets !== undefined) {
    const b = web.metrics.durationBuckets;
    const increasing = b.every((v, i) => Number.isFinite(v) && v > 0 && (i === 0 || v > b[i - 1]!));
    if (b.length === 0 || !increasing)
      bad(
        ['metrics', 'durationBuckets'],
        'metrics.durationBuckets must be a non-empty list of finite numbers > 0, strictly increasing',
      );
  }
  if (typeof web.nodeHistory === 'object') {
    const { interval, points } = web.nodeHistory;
    if (interval !== undefined && !(interval >= 1))
      bad(['nodeHistory', 'interval'], 'nodeHistory.interval must be >= 1.0');
    if (points !== undefined && !(points >= 10 && points <= 50000))
      bad(['nodeHistory', 'points'], 'nodeHistory.points must be between 10 and 50000');
  }
  for (const message of webTlsProblems(web)) bad(['tls'], message);
  if (web.socketMode !== undefined && !/^[0-7]{1,4}$/.test(web.socketMode))
    bad(['socketMode'], `socketMode ${quote(web.socketMode)} must be an octal mode such as 0660`);
  checkWebTokens(web, bad);
  for (const message of bonjourProblems(web)) bad(['bonjour'], message);
}

/** Runtime-only problems the reference tolerates at load: reported as warnings, never errors. */
export function webWarnings(web: WebSection, warnings: LoadWarning[]): void {
  if (web.tls?.ca)
    warnings.push({
      level: 'warning',
      logger: 'cronstable',
      message: 'web.tls.ca has no effect; use web.tls.clientCa to require client certificates',
    });
}

/** Only `version: 1` can be applied; like the reference, anything else fails when applied, not at load. */
export function loggingWarnings(logging: LoggingSection, warnings: LoadWarning[]): void {
  if (logging.version !== 1)
    warnings.push({
      level: 'warning',
      logger: 'cronstable',
      message: `logging: version must be 1, got ${logging.version}; the section will not be applied`,
    });
}
