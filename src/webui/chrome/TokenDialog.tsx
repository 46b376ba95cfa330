// Token prompt: opens on any 401 (or from the header). The token lives in sessionStorage for this tab only and
// is sent as `Authorization: Bearer` on every request, log streams included.
import { useState } from 'preact/hooks';
import { Dialog } from './Dialog.tsx';

export function TokenDialog({
  rejected,
  hasToken,
  onSubmit,
  onClear,
  onClose,
}: {
  rejected: boolean;
  hasToken: boolean;
  onSubmit(token: string): void;
  onClear(): void;
  onClose(): void;
}) {
  const [value, setValue] = useState('');
  return (
    <Dialog title="API token" onClose={onClose}>
      <form
        class="token-form"
        onSubmit={(e) => {
          e.preventDefault();
          if (value.trim() !== '') onSubmit(value.trim());
        }}
      >
        <p class="muted">
          This daemon has <code>web.authToken</code> set. Enter the token to see jobs and control runs. It is
          kept in this tab's session storage only.
        </p>
        {rejected && (
          <p class="form-error" role="alert">
            The API answered 401 Unauthorized{hasToken ? ' for the stored token' : ''}.
          </p>
        )}
        <label class="field">
          <span>Bearer token</span>
          <input
            type="password"
            value={value}
            data-autofocus
            autocomplete="off"
            onInput={(e) => setValue((e.currentTarget as HTMLInputElement).value)}
            data-testid="token-input"
          />
        </label>
        <div class="form-actions">
          {hasToken && (
            <button type="button" class="btn" onClick={onClear}>
              Forget token
            </button>
          )}
          <button type="submit" class="btn btn-primary" disabled={value.trim() === ''}>
            Unlock
          </button>
        </div>
      </form>
    </Dialog>
  );
}
