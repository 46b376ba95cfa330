// Where the Kubernetes backend finds the API server and its credentials (spec 05 §2.5, §10):
// in-cluster service account (token re-read per request), kubeconfig (static token or client
// certificate only), the apiServer override and the namespace resolution order.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { inClusterUrl, resolveCredentials } from '../../src/cluster/kubernetes/credentials.ts';
import { loadKubeconfig, parseKubeconfig } from '../../src/cluster/kubernetes/kubeconfig.ts';
import { kubernetesSettings } from '../../src/cluster/kubernetes/settings.ts';
import { writeTree } from '../helpers/tmp.ts';

const settings = (k: Record<string, unknown> = {}) =>
  kubernetesSettings({ backend: 'kubernetes', kubernetes: k }, 'node-a');

function serviceAccount(files: Record<string, string>) {
  const dir = writeTree(files);
  return { dir, env: { KUBERNETES_SERVICE_HOST: '10.0.0.1', CRONSTABLE_K8S_SERVICEACCOUNT_DIR: dir } };
}

describe('in-cluster credentials', () => {
  it('builds the URL from the service env, bracketing IPv6 and defaulting the port to 443', () => {
    expect(inClusterUrl('10.0.0.1', '6443')).toBe('https://10.0.0.1:6443');
    expect(inClusterUrl('10.0.0.1', undefined)).toBe('https://10.0.0.1:443');
    expect(inClusterUrl('fd00::1', '443')).toBe('https://[fd00::1]:443');
  });

  it('reads CA and namespace once, and the token before every request', async () => {
    const sa = serviceAccount({ 'ca.crt': 'CA PEM', token: 'first\n', namespace: 'jobs\n' });
    const c = await resolveCredentials(settings(), sa.env);
    expect(c.baseUrl).toBe('https://10.0.0.1:443');
    expect(c.namespace).toBe('jobs');
    expect(c.tls.ca).toBe('CA PEM');
    expect(await c.token()).toBe('first');
    writeFileSync(join(sa.dir, 'token'), 'second');
    expect(await c.token()).toBe('second');
  });

  it('namespace: the key wins, then the service account file, then default', async () => {
    const withNs = serviceAccount({ token: 't', namespace: 'jobs' });
    expect((await resolveCredentials(settings({ leaseNamespace: 'ops' }), withNs.env)).namespace).toBe('ops');
    const noNs = serviceAccount({ token: 't' });
    expect((await resolveCredentials(settings(), noNs.env)).namespace).toBe('default');
  });

  it('apiServer overrides the URL; a missing token or no cluster at all fails start', async () => {
    const sa = serviceAccount({ token: 't' });
    const c = await resolveCredentials(settings({ apiServer: 'https://api.example:6443/' }), sa.env);
    expect(c.baseUrl).toBe('https://api.example:6443');
    const noToken = serviceAccount({ namespace: 'x' });
    await expect(resolveCredentials(settings(), noToken.env)).rejects.toThrow(/token/);
    await expect(resolveCredentials(settings(), {})).rejects.toThrow(/KUBERNETES_SERVICE_HOST/);
  });
});

describe('kubeconfig', () => {
  const yaml = (user: string[]) =>
    [
      'apiVersion: v1',
      'kind: Config',
      'preferences: {}',
      'current-context: prod',
      'clusters:',
      '- cluster:',
      '    certificate-authority-data: ' + Buffer.from('CA DATA').toString('base64'),
      '    server: https://k8s.example:6443',
      '  name: prod-cluster',
      'contexts:',
      '- context:',
      '    cluster: prod-cluster',
      '    namespace: team-a',
      '    user: robot',
      '  name: prod',
      'users:',
      '- name: robot',
      '  user:',
      ...user.map((l) => `    ${l}`),
      '',
    ].join('\n');

  it('reads kubectl-written YAML, {} included, and JSON', () => {
    expect(parseKubeconfig(yaml(['token: abc']))['current-context']).toBe('prod');
    expect(parseKubeconfig('{"current-context": "x", "contexts": []}')['current-context']).toBe('x');
  });

  it('a static token, the context namespace and inline CA data', async () => {
    const dir = writeTree({ config: yaml(['token: abc']) });
    const kc = await loadKubeconfig(join(dir, 'config'));
    expect(kc).toMatchObject({
      server: 'https://k8s.example:6443',
      namespace: 'team-a',
      ca: 'CA DATA',
      token: 'abc',
      cert: undefined,
    });
    const c = await resolveCredentials(settings({ kubeconfig: join(dir, 'config') }), {});
    expect(c).toMatchObject({ baseUrl: 'https://k8s.example:6443', namespace: 'team-a' });
    expect(await c.token()).toBe('abc');
  });

  it('a client certificate from files relative to the kubeconfig', async () => {
    const dir = writeTree({
      config: yaml(['client-certificate: pki/me.crt', 'client-key: pki/me.key']),
      'pki/me.crt': 'CERT',
      'pki/me.key': 'KEY',
    });
    const c = await resolveCredentials(settings({ kubeconfig: join(dir, 'config') }), {});
    expect(c.tls).toEqual({ ca: 'CA DATA', cert: 'CERT', key: 'KEY' });
    expect(await c.token()).toBeNull();
  });

  it('refuses exec plugins, auth providers and users without credentials', async () => {
    const exec = writeTree({ config: yaml(['exec:', '  command: aws', '  apiVersion: x']) });
    await expect(resolveCredentials(settings({ kubeconfig: join(exec, 'config') }), {})).rejects.toThrow(
      /exec plugin or auth provider/,
    );
    const none = writeTree({ config: yaml(['username: someone']) });
    await expect(resolveCredentials(settings({ kubeconfig: join(none, 'config') }), {})).rejects.toThrow(
      /neither a token nor a client certificate/,
    );
    const badContext = writeTree({
      config: yaml(['token: x']).replace('current-context: prod', 'current-context: dev'),
    });
    await expect(loadKubeconfig(join(badContext, 'config'))).rejects.toThrow(/no context named "dev"/);
  });
});
