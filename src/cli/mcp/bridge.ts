// `cronstable mcp`: the stdio-to-HTTP bridge to a running daemon's MCP endpoint (spec 07 §8). Kept
// out of the daemon's module graph (Node built-ins only) so a desktop client's spawn starts at once.
import type { Readable } from 'node:stream';
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
  if (parsed.options.check) return check(parsed.options, err);
  return relay(parsed.options, { stdin: p.stdin, frame: (json) => p.out(`${json}\n`), err });
}
