// Modal dialog shell: focus moves in on open, Tab stays inside, Escape closes, focus returns on close.
import type { ComponentChildren, RefObject } from 'preact';
import { useLayoutEffect, useRef } from 'preact/hooks';

const FOCUSABLE =
  'button:not([disabled]), [href], input:not([disabled]), select, textarea, [tabindex]:not([tabindex="-1"])';

/** Focus management shared by the dialogs and the job drawer. */
export function useFocusTrap(ref: RefObject<HTMLElement | null>, onClose: () => void, active = true): void {
  const closeRef = useRef(onClose);
  closeRef.current = onClose;
  // A layout effect, so focus and the Escape handler are in place before the next key press can arrive.
  useLayoutEffect(() => {
    if (!active) return;
    const previous = document.activeElement as HTMLElement | null;
    const root = ref.current;
    if (root) {
      const initial = root.querySelector<HTMLElement>('[data-autofocus]') ?? root;
      initial.focus({ preventScroll: true });
    }
    const onKey = (e: KeyboardEvent): void => {
      const el = ref.current;
      if (!el) return;
      if (e.key === 'Escape') {
        e.preventDefault();
        e.stopPropagation();
        closeRef.current();
        return;
      }
      if (e.key !== 'Tab') return;
      const items = Array.from(el.querySelectorAll<HTMLElement>(FOCUSABLE)).filter(
        (n) => n.offsetParent !== null,
      );
      if (items.length === 0) return;
      const first = items[0]!;
      const last = items[items.length - 1]!;
      if (e.shiftKey && (document.activeElement === first || document.activeElement === el)) {
        e.preventDefault();
        last.focus();
      } else if (!e.shiftKey && document.activeElement === last) {
        e.preventDefault();
        first.focus();
      }
    };
    root?.addEventListener('keydown', onKey);
    return () => {
      root?.removeEventListener('keydown', onKey);
      if (previous && document.contains(previous)) previous.focus({ preventScroll: true });
    };
  }, [active]);
}

export function Dialog({
  title,
  onClose,
  children,
  wide,
}: {
  title: string;
  onClose(): void;
  children: ComponentChildren;
  wide?: boolean;
}) {
  const ref = useRef<HTMLDivElement>(null);
  useFocusTrap(ref, onClose);
  return (
    <div class="overlay">
      <div class="overlay-scrim" onClick={onClose} aria-hidden="true" />
      <div
        ref={ref}
        class={`dialog${wide ? ' dialog-wide' : ''}`}
        role="dialog"
        aria-modal="true"
        aria-labelledby="dialog-title"
        tabIndex={-1}
      >
        <div class="dialog-head">
          <h2 id="dialog-title">{title}</h2>
          <button type="button" class="iconbtn" onClick={onClose} aria-label="Close">
            ✕
          </button>
        </div>
        {children}
      </div>
    </div>
  );
}
