// Keyboard shortcut sheet (`?`), from src/dashboard/shortcuts.ts.
import { SHORTCUTS } from '../../dashboard/shortcuts.ts';
import { Dialog } from './Dialog.tsx';

export function HelpDialog({ onClose }: { onClose(): void }) {
  return (
    <Dialog title="Keyboard shortcuts" onClose={onClose} wide>
      <div class="keys-sections" data-testid="help">
        {SHORTCUTS.map((s) => (
          <section key={s.section} class="keys-section" aria-label={s.section}>
            <h3>{s.section}</h3>
            <dl class="keys">
              {s.keys.map((k) => (
                <div key={k.what} class="keys-row">
                  <dt>
                    {k.keys.map((part) => (
                      <kbd key={part}>{part}</kbd>
                    ))}
                  </dt>
                  <dd>{k.what}</dd>
                </div>
              ))}
            </dl>
          </section>
        ))}
      </div>
    </Dialog>
  );
}
