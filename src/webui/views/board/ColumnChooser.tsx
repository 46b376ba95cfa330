// The "⊞ cols" chooser: a disclosure button with a checkbox per optional column of the jobs table.
import { useLayoutEffect, useRef, useState } from 'preact/hooks';
import { OPTIONAL_COLUMNS, type OptionalColumn } from '../../../dashboard/columns.ts';

export function ColumnChooser({
  cols,
  onToggle,
}: {
  cols: readonly OptionalColumn[];
  onToggle(id: OptionalColumn): void;
}) {
  const [open, setOpen] = useState(false);
  const root = useRef<HTMLDivElement>(null);
  const button = useRef<HTMLButtonElement>(null);
  // A layout effect, as in Dialog: the first box has the focus before the next key press can arrive.
  useLayoutEffect(() => {
    if (!open) return;
    root.current?.querySelector<HTMLInputElement>('input')?.focus();
    const outside = (e: MouseEvent): void => {
      if (root.current && !root.current.contains(e.target as Node)) setOpen(false);
    };
    document.addEventListener('mousedown', outside);
    return () => document.removeEventListener('mousedown', outside);
  }, [open]);
  return (
    // biome-ignore lint/a11y/noStaticElementInteractions: Escape anywhere inside the open menu closes it
    <div
      class="colchooser"
      ref={root}
      onKeyDown={(e) => {
        if (e.key === 'Escape' && open) {
          e.preventDefault();
          e.stopPropagation();
          setOpen(false);
          button.current?.focus();
        }
      }}
    >
      <button
        ref={button}
        type="button"
        class={`btn${cols.length > 0 ? ' is-on' : ''}`}
        aria-expanded={open}
        aria-controls="colchooser-menu"
        onClick={() => setOpen((o) => !o)}
        title="Choose the optional columns"
        data-testid="cols-button"
      >
        ⊞ cols{cols.length > 0 ? ` +${cols.length}` : ''}
      </button>
      {open && (
        <fieldset id="colchooser-menu" class="colchooser-menu" data-testid="cols-menu">
          <legend>Optional columns</legend>
          {OPTIONAL_COLUMNS.map((c) => (
            <label key={c.id} class="colchooser-item" title={c.title}>
              <input
                type="checkbox"
                checked={cols.includes(c.id)}
                onChange={() => onToggle(c.id)}
                data-col={c.id}
              />
              {c.label} <span class="muted">{c.title}</span>
            </label>
          ))}
        </fieldset>
      )}
    </div>
  );
}
