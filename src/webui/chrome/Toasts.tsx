// Short-lived notices (run started, 409 refusals, copy results), announced politely to screen readers.
import { useCallback, useState } from 'preact/hooks';

export interface Toast {
  id: number;
  text: string;
  tone: 'ok' | 'bad' | 'info';
}

let nextId = 1;

export function useToasts(): [Toast[], (text: string, tone?: Toast['tone']) => void] {
  const [toasts, setToasts] = useState<Toast[]>([]);
  const push = useCallback((text: string, tone: Toast['tone'] = 'info') => {
    const id = nextId++;
    setToasts((t) => [...t.slice(-3), { id, text, tone }]);
    window.setTimeout(() => setToasts((t) => t.filter((x) => x.id !== id)), 4000);
  }, []);
  return [toasts, push];
}

export function Toasts({ toasts }: { toasts: readonly Toast[] }) {
  return (
    <div class="toasts" aria-live="polite" role="status">
      {toasts.map((t) => (
        <div key={t.id} class={`toast toast-${t.tone}`}>
          {t.text}
        </div>
      ))}
    </div>
  );
}
