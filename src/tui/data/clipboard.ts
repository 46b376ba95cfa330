// The clipboard (spec 08 §4.15): OSC 52 reaches the terminal the user looks at (over SSH too); a local
// clipboard tool, when this session has one, gets the text as well. Failures are silent: OSC 52 cannot be
// confirmed either way.
import { spawn } from 'node:child_process';

/**
 * The OSC 52 sequence for `text`. Inside tmux (`TMUX` set) it goes twice: plain, which tmux itself takes into
 * its buffer and forwards with its default `set-clipboard external`, and in tmux's passthrough wrapper
 * (`ESC P tmux; … ESC \`, every ESC doubled), which only `allow-passthrough on` lets out and which tmux drops
 * otherwise. GNU screen (`STY` set) swallows it, so it travels in screen's `ESC P … ESC \` in pieces of at
 * most 76 bytes (screen limits one string).
 */
export function osc52(text: string, env: NodeJS.ProcessEnv = {}): string {
  const seq = `\u001b]52;c;${Buffer.from(text, 'utf8').toString('base64')}\u0007`;
  if (env.TMUX) return `${seq}\u001bPtmux;${seq.replaceAll('\u001b', '\u001b\u001b')}\u001b\\`;
  if (env.STY) {
    let out = '';
    for (let i = 0; i < seq.length; i += 76) out += `\u001bP${seq.slice(i, i + 76)}\u001b\\`;
    return out;
  }
  return seq;
}

/** The local clipboard command for this platform and session, or null. */
export function clipboardTool(env: NodeJS.ProcessEnv, platform: NodeJS.Platform): [string, string[]] | null {
  if (platform === 'win32') return ['clip.exe', []];
  if (platform === 'darwin') return ['pbcopy', []];
  if (env.WAYLAND_DISPLAY) return ['wl-copy', []];
  if (env.DISPLAY) return ['xclip', ['-selection', 'clipboard']];
  return null;
}

/** Pipes the text to the local tool (UTF-16LE for clip.exe), giving up after 3 s. */
export function pipeToClipboard(text: string, env = process.env, platform = process.platform): void {
  const tool = clipboardTool(env, platform);
  if (tool === null) return;
  try {
    const child = spawn(tool[0], tool[1], { stdio: ['pipe', 'ignore', 'ignore'], timeout: 3000 });
    child.on('error', () => {});
    child.stdin.on('error', () => {});
    child.stdin.end(platform === 'win32' ? Buffer.from(text, 'utf16le') : text);
  } catch {
    // no such tool
  }
}
