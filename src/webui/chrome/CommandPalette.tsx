// The command palette (Ctrl/⌘-K, Ctrl-P): fuzzy search over every registered action (views, toolbar, settings)
// and every job's actions; ↑/↓ move, Enter runs, Esc closes. ARIA: a combobox driving a listbox.
import { useEffect, useMemo, useRef, useState } from 'preact/hooks';
import { type Command, rankCommands } from '../../dashboard/commands.ts';
import { useFocusTrap } from './Dialog.tsx';

export function CommandPalette({ commands, onClose }: { commands: readonly Command[]; onClose(): void }) {
  const ref = useRef<HTMLDivElement>(null);
  const listRef = useRef<HTMLDivElement>(null);
  const [query, setQuery] = useState('');
  const [active, setActive] = useState(0);
  useFocusTrap(ref, onClose);
  const shown = useMemo(() => rankCommands(commands, query, 60), [commands, query]);
  useEffect(() => setActive(0), [query]);
  useEffect(() => {
    listRef.current
      ?.querySelector<HTMLElement>(`[data-index="${active}"]`)
      ?.scrollIntoView({ block: 'nearest' });
  }, [active]);

  const run = (c: Command | undefined): void => {
    if (c === undefined) return;
    onClose();
    // after the palette has closed, so focus and route changes land on the page
    window.setTimeout(() => c.run(), 0);
  };

  return (
    <div class="overlay overlay-top">
      <div class="overlay-scrim" onClick={onClose} aria-hidden="true" />
      <div
        ref={ref}
        class="dialog palette"
        role="dialog"
        aria-modal="true"
        aria-label="Command palette"
        tabIndex={-1}
        data-testid="palette"
      >
        <div class="palette-input">
          <span aria-hidden="true">›</span>
          <input
            type="text"
            role="combobox"
            aria-expanded="true"
            aria-controls="palette-list"
            aria-autocomplete="list"
            aria-activedescendant={shown.length > 0 ? `palette-opt-${active}` : undefined}
            aria-label="Search jobs and actions"
            placeholder="jump to a job or run an action…"
            value={query}
            autocomplete="off"
            spellcheck={false}
            data-autofocus
            onInput={(e) => setQuery((e.currentTarget as HTMLInputElement).value)}
            onKeyDown={(e) => {
              if (e.key === 'ArrowDown' || (e.key === 'n' && e.ctrlKey)) {
                e.preventDefault();
                setActive((i) => Math.min(shown.length - 1, i + 1));
              } else if (e.key === 'ArrowUp' || (e.key === 'p' && e.ctrlKey)) {
                e.preventDefault();
                setActive((i) => Math.max(0, i - 1));
              } else if (e.key === 'PageDown' || e.key === 'PageUp') {
                e.preventDefault();
                setActive((i) =>
                  Math.max(0, Math.min(shown.length - 1, i + (e.key === 'PageDown' ? 8 : -8))),
                );
              } else if (e.key === 'Enter') {
                e.preventDefault();
                run(shown[active]);
              }
            }}
          />
          <span class="palette-count muted" aria-live="polite">
            {shown.length === 0 ? 'no match' : `${shown.length}${shown.length === 60 ? '+' : ''}`}
          </span>
        </div>
        <div id="palette-list" ref={listRef} class="palette-list" role="listbox" aria-label="Actions">
          {shown.map((c, i) => {
            return (
              <div
                key={c.id}
                id={`palette-opt-${i}`}
                role="option"
                aria-selected={i === active}
                class={`palette-item${i === active ? ' is-active' : ''}`}
                data-index={i}
                data-command={c.id}
                onMouseMove={() => i !== active && setActive(i)}
                tabIndex={-1}
                onClick={() => run(c)}
                onKeyDown={(e) => e.key === 'Enter' && run(c)}
              >
                <span class="palette-title">{c.title}</span>
                {c.group && <span class="palette-group">{c.group}</span>}
                {c.hint && <kbd class="palette-hint">{c.hint}</kbd>}
              </div>
            );
          })}
        </div>
      </div>
    </div>
  );
}
