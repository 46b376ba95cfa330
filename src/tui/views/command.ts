// A palette entry as the views' descriptors declare them, one spelling for all of them.
import type { Command } from '../../dashboard/commands.ts';

/** An entry of the palette: its id, the title it lists, the icon on the right, and what it does. */
export function command(
  id: string,
  title: string,
  hint: string,
  run: () => void,
  group: 'actions' | 'jobs' = 'actions',
): Command {
  return { id, title, hint, group, run };
}
