// The page's one command-palette registry (one dashboard per page) and the hook a view uses to add its own
// actions while it is mounted; the built-in lists come from src/dashboard/palette.ts.
import { useEffect, useRef } from 'preact/hooks';
import { CommandRegistry, type CommandSource } from '../../dashboard/commands.ts';

export const pageCommands = new CommandRegistry();

/** Registers `source` with the page's palette while the calling component is mounted. */
export function useRegisterCommands(key: string, source: CommandSource): void {
  const latest = useRef(source);
  latest.current = source;
  useEffect(() => pageCommands.register(key, () => latest.current()), [key]);
}
