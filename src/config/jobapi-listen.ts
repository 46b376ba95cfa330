// `state.jobApi.listen` and `state.jobApi.tls` (spec 10 §3.5): the endpoint jobs dial, over http or
// https. Pure: the parsed address, the load errors in the spec's order, and the off-host warning.
import { quote } from './errors.ts';
import type { StateSection } from './file-schema.ts';

export interface JobApiListen {
  tls: boolean;
  /** As written (IPv6 bracketed); `127.0.0.1` when blank. */
  host: string;
  port: number;
  /** The host was blank or unspecified (`0.0.0.0`, `::`): jobs get the bound address instead. */
  wildcard: boolean;
}

const WILDCARD = /^(|0\.0\.0\.0|\[?::\]?|\[?::0\]?|\[?0:0:0:0:0:0:0:0\]?|\*)$/;

/** `https://host:port`, `http://host:port` or bare `host:port`; the parts, or the error text. */
export function parseJobApiListen(text: string): JobApiListen | string {
  const scheme = /^([a-zA-Z][a-zA-Z0-9+.-]*):\/\//.exec(text)?.[1]?.toLowerCase();
  if (scheme !== undefined && scheme !== 'http' && scheme !== 'https')
    return 'state.jobApi.listen must be an http:// or https:// URL or a bare host:port (the job CLI reaches the endpoint over TCP only)';
  const m = /^(?:https?:\/\/)?(\[[^\]]+\]|[^:/]*)(?::(\d+))?\/?$/i.exec(text);
  if (!m) return `jobApi.listen ${quote(text)} must be https://host:port, http://host:port or host:port`;
  const port = m[2] === undefined ? 0 : Number(m[2]);
  if (port > 65535) return `jobApi.listen port ${port} must be between 0 and 65535`;
  const written = m[1] ?? '';
  return {
    tls: scheme === 'https',
    host: written || '127.0.0.1',
    port,
    wildcard: WILDCARD.test(written),
  };
}

type JobApi = NonNullable<StateSection['jobApi']>;

/** The §3.5 load errors, in the spec's order (the listen's own parse error comes first, elsewhere). */
export function jobApiTlsProblems(api: JobApi, listen: JobApiListen | null): string[] {
  const cert = Boolean(api.tls?.cert);
  const key = Boolean(api.tls?.key);
  const out: string[] = [];
  if (cert !== key)
    out.push(
      `state.jobApi.tls.cert and state.jobApi.tls.key must be set together (a server certificate needs its private key); got cert=${cert ? 'True' : 'False'}, key=${key ? 'True' : 'False'}`,
    );
  const https = listen?.tls === true;
  if ((cert || key || api.tls?.ca) && !https)
    out.push(
      'state.jobApi.tls is configured but state.jobApi.listen is not an https:// URL, so the TLS material would be ignored and per-run bearer tokens sent in cleartext; use an https:// listen address or remove state.jobApi.tls',
    );
  if (https && !cert)
    out.push(
      'state.jobApi.listen is https:// but state.jobApi.tls.cert and state.jobApi.tls.key are not set, so the endpoint has no certificate to serve',
    );
  if (https && listen.wildcard)
    out.push(
      'state.jobApi.listen cannot bind a wildcard host over https:// : jobs dial the address they are given, and no certificate covers an unspecified address; name the interface explicitly, e.g. https://10.0.0.5:9000',
    );
  return out;
}

/** The warning of every load for an off-host plaintext endpoint, or null. */
export function jobApiCleartextWarning(
  api: JobApi,
  listen: JobApiListen,
  loopback: (host: string) => boolean,
): string | null {
  if (!api.allowNonLoopbackBind || listen.tls || loopback(listen.host)) return null;
  return `state.jobApi.listen binds ${quote(listen.host)} off-host without TLS, so per-run bearer tokens and staged job secrets cross the network in cleartext; set an https:// listen address with state.jobApi.tls, or terminate TLS in front of it`;
}
