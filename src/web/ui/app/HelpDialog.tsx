// Keyboard shortcut overlay (`?`).
import { Dialog } from './Dialog.tsx';

const KEYS: ReadonlyArray<[string, string]> = [
  ['/', 'focus the job filter'],
  ['j  ↓', 'select the next job'],
  ['k  ↑', 'select the previous job'],
  ['Enter', 'open the selected job'],
  ['r', 'run the selected job now'],
  ['x', 'cancel the selected job'],
  ['1 2 3 4', 'drawer tabs: logs, history, schedule, resources'],
  ['v', 'toggle the week calendar view'],
  ['i', 'incident timeline'],
  ['w', 'wallboard (TV) view'],
  ['t', 'toggle light / dark theme'],
  ['g', 'refresh now'],
  ['?', 'this help'],
  ['Esc', 'close the drawer or dialog'],
];

export function HelpDialog({ onClose }: { onClose(): void }) {
  return (
    <Dialog title="Keyboard shortcuts" onClose={onClose}>
      <dl class="keys" data-testid="help">
        {KEYS.map(([k, what]) => (
          <div key={k} class="keys-row">
            <dt>
              {k.split('  ').map((part) => (
                <kbd key={part}>{part}</kbd>
              ))}
            </dt>
            <dd>{what}</dd>
          </div>
        ))}
      </dl>
    </Dialog>
  );
}
