// The etcd gateway bodies and readings (spec 05 §9), the cadence and the ttl advisory.
import { describe, expect, it } from 'vitest';
import { etcdCadence, etcdSettings, lowTtlAdvisory } from '../../src/cluster/etcd/settings.ts';
import {
  b64,
  campaignBody,
  casPutBody,
  mergeRanSet,
  parseRanSet,
  RAN_SET_MAX,
  readCampaign,
  readGrant,
  readKeepAlive,
  readRange,
  readTxnSucceeded,
  unb64,
} from '../../src/cluster/etcd/wire.ts';

const header = { cluster_id: '1', member_id: '2', revision: '7', raft_term: '2' };

describe('etcd wire', () => {
  it('encodes keys and values as base64 and the campaign as create-if-absent bound to my lease', () => {
    expect(unb64(b64('cronstable/leader'))).toBe('cronstable/leader');
    expect(campaignBody('cronstable/leader', 'node-a', '42')).toEqual({
      compare: [{ key: b64('cronstable/leader'), result: 'EQUAL', target: 'CREATE', create_revision: '0' }],
      success: [{ request_put: { key: b64('cronstable/leader'), value: b64('node-a'), lease: '42' } }],
      failure: [{ request_range: { key: b64('cronstable/leader') } }],
    });
    expect(casPutBody('k', 'v', '0').compare).toEqual([
      { key: b64('k'), result: 'EQUAL', target: 'MOD', mod_revision: '0' },
    ]);
  });

  it('reads a grant, narrowing to the TTL the server granted; a body without ID is no grant', () => {
    expect(readGrant({ header, ID: '7587', TTL: '9' })).toEqual({ id: '7587', ttl: 9 });
    expect(readGrant({ header, ID: '7587' })).toBeNull();
    expect(readGrant({ header, TTL: '9' })).toBeNull();
    expect(readGrant(null)).toBeNull();
  });

  it('a keepalive without a TTL, or with TTL <= 0, means the lease is gone', () => {
    expect(readKeepAlive({ result: { header, ID: '1', TTL: '5' } })).toBe(5);
    expect(readKeepAlive({ result: { header, ID: '1' } })).toBe(0);
    expect(readKeepAlive({ result: { header, ID: '1', TTL: '-1' } })).toBe(-1);
    expect(readKeepAlive({})).toBe(0);
    expect(readKeepAlive('nonsense')).toBe(0);
  });

  it('won ⇔ the txn succeeded, or the existing key is bound to my lease id', () => {
    expect(readCampaign({ header, succeeded: true, responses: [] }, 'me', '42')).toEqual({
      won: true,
      holder: 'me',
      holderLease: '42',
    });
    const held = (lease: string, value: string) => ({
      header,
      responses: [
        {
          response_range: {
            header,
            kvs: [{ key: b64('k'), value: b64(value), lease, create_revision: '3', mod_revision: '3' }],
            count: '1',
          },
        },
      ],
    });
    expect(readCampaign(held('42', 'me'), 'me', '42')).toEqual({
      won: true,
      holder: 'me',
      holderLease: '42',
    });
    expect(readCampaign(held('43', 'other'), 'me', '42')).toEqual({
      won: false,
      holder: 'other',
      holderLease: '43',
    });
    // Our name on another lease (a twin with our nodeName, or our own stale lease): not won.
    expect(readCampaign(held('43', 'me'), 'me', '42')?.won).toBe(false);
    // The key vanished between compare and range: nobody to name.
    expect(readCampaign({ header, responses: [{ response_range: { header } }] }, 'me', '42')).toEqual({
      won: false,
      holder: null,
      holderLease: null,
    });
    expect(readCampaign({ error: 'x' }, 'me', '42')).toBeNull();
  });

  it('reads ranges and txn outcomes, camelCase included', () => {
    expect(readRange({ header })).toEqual({ kv: null });
    expect(
      readRange({ header, kvs: [{ key: b64('a'), value: b64('b'), modRevision: '9', createRevision: '4' }] }),
    ).toEqual({ kv: { key: 'a', value: 'b', lease: '0', createRevision: '4', modRevision: '9' } });
    expect(readTxnSucceeded({ header })).toBe(false);
    expect(readTxnSucceeded({ header, succeeded: true })).toBe(true);
    expect(readTxnSucceeded({})).toBeNull();
  });

  it('the ran-set merges within one job set, replaces another, and keeps the newest 512', () => {
    expect(mergeRanSet(null, 'v1:a', 'x')).toEqual({ jobSetId: 'v1:a', jobs: ['x'] });
    expect(mergeRanSet({ jobSetId: 'v1:a', jobs: ['x', 'y'] }, 'v1:a', 'x')).toEqual({
      jobSetId: 'v1:a',
      jobs: ['y', 'x'],
    });
    expect(mergeRanSet({ jobSetId: 'v1:old', jobs: ['x', 'y'] }, 'v1:a', 'z')).toEqual({
      jobSetId: 'v1:a',
      jobs: ['z'],
    });
    const many = { jobSetId: 'v1:a', jobs: Array.from({ length: RAN_SET_MAX }, (_, i) => `j${i}`) };
    const merged = mergeRanSet(many, 'v1:a', 'new');
    expect(merged.jobs).toHaveLength(RAN_SET_MAX);
    expect(merged.jobs[0]).toBe('j1');
    expect(merged.jobs.at(-1)).toBe('new');
    expect(parseRanSet(JSON.stringify(merged))).toEqual(merged);
    expect(parseRanSet('{"jobSetId":1}')).toBeNull();
    expect(parseRanSet('not json')).toBeNull();
  });
});

describe('etcd settings and cadence', () => {
  it('applies the defaults of spec 05 §2.4', () => {
    expect(etcdSettings({ backend: 'etcd' })).toEqual({
      endpoints: ['http://127.0.0.1:2379'],
      electionName: 'cronstable/leader',
      ttl: 15,
      connectTimeout: 10,
      username: null,
      password: null,
      tls: { ca: null, cert: null, key: null },
    });
  });

  it('renews every max(1, ttl/3), bounds a round by max(1, ttl − renew − 1), a POST by min(connectTimeout, round/5)', () => {
    expect(etcdCadence(15, 10)).toEqual({ renewMs: 5000, roundMs: 9000, opMs: 1800 });
    expect(etcdCadence(15, 1)).toEqual({ renewMs: 5000, roundMs: 9000, opMs: 1000 });
    expect(etcdCadence(3, 10)).toEqual({ renewMs: 1000, roundMs: 1000, opMs: 200 });
    expect(etcdCadence(2, 10)).toEqual({ renewMs: 1000, roundMs: 1000, opMs: 200 });
  });

  it('warns when renew POSTs get under a second, and when the granted ttl is below 3', () => {
    expect(lowTtlAdvisory(15, 15)).toBeNull();
    expect(lowTtlAdvisory(9, 9)).toBeNull();
    expect(lowTtlAdvisory(8, 15)).toMatch(/granted 8 s of the 15 s asked.*under 1 s/);
    expect(lowTtlAdvisory(2, 15)).toMatch(/below 3 s: this node effectively cannot lead/);
  });
});
