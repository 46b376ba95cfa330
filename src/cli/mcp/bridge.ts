// `cronstable mcp`: the stdio-to-HTTP bridge to a running daemon's MCP endpoint (spec 07 §8). Kept
// out of the daemon's module graph (Node built-ins only) so a desktop client's spawn starts at once.
import type { Readable } from 'node:stream';
import { ClientTlsError, insecureExtras, loadClientTls } from '../../http/client-tls.ts';
import { MCP_USAGE, parseBridgeArgs, UsageError } from './args.ts';
import { check } from './check.ts';
import { relay } from './relay.ts';

export interface BridgeProcess {
  argv: string[];
  env: NodeJS.ProcessEnv;
  stdin: Readable;
  out: (text: string) => void;
  err: (text: string) => void;
}

export async function runMcpBridge(p: BridgeProcess): Promise<number> {
  let parsed: ReturnType<typeof parseBridgeArgs>;
  try {
    parsed = parseBridgeArgs(p.argv, p.env);
  } catch (e) {
    if (!(e instanceof UsageError)) throw e;
    p.err(`cronstable mcp: ${e.message} (see --help)\n`);
    return 2;
  }
  if (parsed.kind === 'help') {
    p.out(`${MCP_USAGE}\n`);
    return 0;
  }
  const err = (line: string) => p.err(`${line}\n`);
  for (const w of parsed.warnings) err(`cronstable mcp: ${w}`);
  const opts = parsed.options;
  let tls: ReturnType<typeof loadClientTls> | null = null;
  if (opts.tls) {
    try {
      tls = loadClientTls(opts.tls);
    } catch (e) {
      if (!(e instanceof ClientTlsError)) throw e;
      err(`${opts.check ? 'mcp check: ' : ''}cannot use the given TLS material (${e.material}): ${e.reason}`);
      return 1;
    }
    if (opts.tls.insecure)
      err(
        'warning: --insecure disables TLS verification; the bearer token is still sent, so it goes to whoever answers',
      );
    for (const w of insecureExtras(opts.tls)) err(w);
  }
  const transport = { ...opts, tlsOptions: tls };
  if (opts.check) return check(transport, err);
  return relay(transport, { stdin: p.stdin, frame: (json) => p.out(`${json}\n`), err });
}
