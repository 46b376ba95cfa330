// The system clipboard beside OSC 52 (spec 08 §4.15): the text is piped to the first clipboard tool found on
// PATH. OSC 52 cannot be confirmed and a tool may be missing, so nothing here reports failure.
import { spawn } from 'node:child_process';
import { accessSync, constants } from 'node:fs';
import { delimiter, join } from 'node:path';

const TIMEOUT_MS = 3000;

interface Tool {
  cmd: string;
  args: string[];
  utf16?: boolean;
}

const TOOLS: readonly Tool[] = [
  { cmd: 'clip.exe', args: [], utf16: true },
  { cmd: 'pbcopy', args: [] },
  { cmd: 'wl-copy', args: [] },
  { cmd: 'xclip', args: ['-selection', 'clipboard'] },
];

/** The executable's full path on PATH, or null. */
function onPath(cmd: string, env: NodeJS.ProcessEnv): string | null {
  for (const dir of (env.PATH ?? '').split(delimiter)) {
    if (dir === '') continue;
    try {
      accessSync(join(dir, cmd), constants.X_OK);
      return join(dir, cmd);
    } catch {
      // next directory
    }
  }
  return null;
}

/** The clipboard tool this machine has (with its full path), or null. */
export function clipboardTool(env: NodeJS.ProcessEnv = process.env): (Tool & { path: string }) | null {
  for (const t of TOOLS) {
    const path = onPath(t.cmd, env);
    if (path) return { ...t, path };
  }
  return null;
}

/** Pipes `text` to the clipboard tool, if any; killed after 3 s. */
export function pipeToClipboard(text: string, env: NodeJS.ProcessEnv = process.env): void {
  const tool = clipboardTool(env);
  if (!tool) return;
  try {
    const child = spawn(tool.path, tool.args, { stdio: ['pipe', 'ignore', 'ignore'], timeout: TIMEOUT_MS });
    child.on('error', () => {});
    child.stdin.on('error', () => {});
    child.stdin.end(tool.utf16 ? Buffer.from(text, 'utf16le') : text);
  } catch {
    // no clipboard tool after all: OSC 52 was written anyway
  }
}
