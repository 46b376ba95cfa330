// The Lease object and the round table of spec 05 §10, pure: MicroTime, the observer-clock expiry,
// create / renew / acquire / wait, the write bodies and the ran-set annotation.
import { describe, expect, it } from 'vitest';
import {
  asLease,
  createBody,
  decideRound,
  type LeaseObject,
  leasePath,
  microTime,
  type Observation,
  observe,
  parseTime,
  RAN_SET_ANNOTATION,
  readRanSetAnnotation,
  releaseBody,
  withRanJob,
  writeBody,
} from '../../src/cluster/kubernetes/lease-object.ts';
import { kubernetesSettings, requestTimeoutMs } from '../../src/cluster/kubernetes/settings.ts';

const ME = 'node-a#0123456789ab';
const OTHER = 'node-b#ba9876543210';

function lease(
  holder: string | null,
  renewTime = '2026-12-01T05:00:00.000000Z',
  extra: Partial<LeaseObject['spec']> = {},
) {
  return asLease({
    apiVersion: 'coordination.k8s.io/v1',
    kind: 'Lease',
    metadata: { name: 'cronstable-leader', namespace: 'ns', resourceVersion: '17' },
    spec: {
      holderIdentity: holder,
      leaseDurationSeconds: 15,
      acquireTime: '2026-12-01T04:00:00.000000Z',
      renewTime,
      leaseTransitions: 3,
      ...extra,
    },
  })!;
}

describe('MicroTime and paths', () => {
  it('formats UTC with exactly six fractional digits', () => {
    expect(microTime(Date.UTC(2026, 11, 1, 5, 6, 7, 89))).toBe('2026-12-01T05:06:07.089000Z');
    expect(microTime(Date.UTC(2026, 0, 2, 3, 4, 5, 6) + 0.789)).toBe('2026-01-02T03:04:05.006789Z');
    expect(parseTime('2026-12-01T05:06:07.089000Z')).toBe(Date.UTC(2026, 11, 1, 5, 6, 7, 89));
    expect(parseTime('garbage')).toBeNull();
    expect(parseTime(null)).toBeNull();
  });

  it('addresses the object and the collection', () => {
    expect(leasePath('ns', 'cronstable-leader')).toBe(
      '/apis/coordination.k8s.io/v1/namespaces/ns/leases/cronstable-leader',
    );
    expect(leasePath('ns')).toBe('/apis/coordination.k8s.io/v1/namespaces/ns/leases');
    expect(asLease({ kind: 'Status', metadata: { name: 'x' } })).toBeNull();
  });
});

describe('the round table', () => {
  const seenAt = (holder: string, since: number, renewTime = '2026-12-01T05:00:00.000000Z'): Observation => ({
    holder,
    renewTime,
    durationSeconds: 15,
    since,
  });

  it('absent ⇒ create, unless a remembered other holder has not expired by my clock', () => {
    expect(decideRound(null, null, ME, 0)).toBe('create');
    expect(decideRound(null, seenAt(OTHER, 1000), ME, 1000 + 14_999)).toBe('wait');
    expect(decideRound(null, seenAt(OTHER, 1000), ME, 1000 + 15_000)).toBe('create');
    expect(decideRound(null, seenAt(ME, 1000), ME, 1001)).toBe('create');
  });

  it('mine ⇒ renew; empty holder ⇒ acquire; another ⇒ wait until its unchanged record is a duration old', () => {
    expect(decideRound(lease(ME), seenAt(ME, 0), ME, 100_000)).toBe('renew');
    expect(decideRound(lease(null), null, ME, 0)).toBe('acquire');
    expect(decideRound(lease(''), null, ME, 0)).toBe('acquire');
    expect(decideRound(lease(OTHER), null, ME, 0)).toBe('wait');
    expect(decideRound(lease(OTHER), seenAt(OTHER, 5000), ME, 5000 + 14_999)).toBe('wait');
    expect(decideRound(lease(OTHER), seenAt(OTHER, 5000), ME, 5000 + 15_000)).toBe('acquire');
  });

  it('the observation restarts whenever holder or renewTime moves, never on the wall clock', () => {
    let seen = observe(null, lease(OTHER, 't1'), 1000, 15);
    expect(seen).toMatchObject({ holder: OTHER, renewTime: 't1', since: 1000 });
    seen = observe(seen, lease(OTHER, 't1'), 9000, 15);
    expect(seen!.since).toBe(1000);
    seen = observe(seen, lease(OTHER, 't2'), 12_000, 15);
    expect(seen!.since).toBe(12_000);
    expect(decideRound(lease(OTHER, 't2'), seen, ME, 12_000 + 14_000)).toBe('wait');
    seen = observe(seen, lease(ME, 't2'), 13_000, 15);
    expect(seen).toMatchObject({ holder: ME, since: 13_000 });
    // A 404 keeps what we remember.
    expect(observe(seen, null, 20_000, 15)).toBe(seen);
    // The holder's declared duration is the one we wait out.
    const short = observe(null, lease(OTHER, 't3', { leaseDurationSeconds: 4 }), 0, 15)!;
    expect(short.durationSeconds).toBe(4);
    expect(decideRound(lease(OTHER, 't3'), short, ME, 4000)).toBe('acquire');
  });
});

describe('write bodies', () => {
  const w = { token: ME, durationSeconds: 15, nowMs: Date.UTC(2026, 11, 1, 6, 0, 0, 500) };

  it('create: us, transitions 0, acquireTime = renewTime = now', () => {
    expect(createBody('ns', 'cronstable-leader', w)).toEqual({
      apiVersion: 'coordination.k8s.io/v1',
      kind: 'Lease',
      metadata: { name: 'cronstable-leader', namespace: 'ns' },
      spec: {
        holderIdentity: ME,
        leaseDurationSeconds: 15,
        acquireTime: '2026-12-01T06:00:00.500000Z',
        renewTime: '2026-12-01T06:00:00.500000Z',
        leaseTransitions: 0,
      },
    });
  });

  it('renew keeps acquireTime and transitions; acquire bumps transitions; both carry the resourceVersion', () => {
    const renew = writeBody(lease(ME), 'renew', w);
    expect(renew.metadata.resourceVersion).toBe('17');
    expect(renew.spec).toMatchObject({
      holderIdentity: ME,
      acquireTime: '2026-12-01T04:00:00.000000Z',
      renewTime: '2026-12-01T06:00:00.500000Z',
      leaseTransitions: 3,
    });
    const acquire = writeBody(lease(OTHER), 'acquire', w);
    expect(acquire.metadata.resourceVersion).toBe('17');
    expect(acquire.spec).toMatchObject({
      holderIdentity: ME,
      acquireTime: '2026-12-01T06:00:00.500000Z',
      leaseTransitions: 4,
    });
  });

  it('release clears the holder, keeps transitions and the resourceVersion', () => {
    const r = releaseBody(lease(ME));
    expect(r.spec.holderIdentity).toBeNull();
    expect(r.spec.leaseTransitions).toBe(3);
    expect(r.metadata.resourceVersion).toBe('17');
  });

  it('the ran-set annotation adds within a job set and replaces another', () => {
    expect(readRanSetAnnotation(lease(ME))).toBeNull();
    const first = withRanJob(lease(ME), 'v1:a', 'warm');
    expect(first.set).toEqual({ jobSetId: 'v1:a', jobs: ['warm'] });
    expect(first.body.metadata.resourceVersion).toBe('17');
    expect(readRanSetAnnotation(first.body)).toEqual(first.set);
    const second = withRanJob(first.body, 'v1:a', 'announce');
    expect(second.set.jobs).toEqual(['warm', 'announce']);
    const other = withRanJob(second.body, 'v1:b', 'x');
    expect(other.set).toEqual({ jobSetId: 'v1:b', jobs: ['x'] });
    const broken = lease(ME);
    broken.metadata.annotations = { [RAN_SET_ANNOTATION]: '{not json' };
    expect(readRanSetAnnotation(broken)).toBeNull();
  });
});

describe('kubernetes settings', () => {
  it('applies the defaults of spec 05 §2.5 (identity = nodeName) and bounds a request', () => {
    const s = kubernetesSettings({ backend: 'kubernetes' }, 'node-a');
    expect(s).toEqual({
      leaseName: 'cronstable-leader',
      leaseNamespace: null,
      clientLibrary: 'auto',
      durationSeconds: 15,
      renewDeadlineSeconds: 10,
      retryPeriodSeconds: 2,
      identity: 'node-a',
      kubeconfig: null,
      apiServer: null,
      connectTimeout: 10,
    });
    expect(requestTimeoutMs(s)).toBe(5000);
    expect(requestTimeoutMs({ ...s, connectTimeout: 2 })).toBe(2000);
  });
});
