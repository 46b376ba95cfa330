// What the main area shows before the first `/jobs` answer: connecting, no answer, or a token is needed.
export function LoadingCard({
  locked,
  failed,
  onUnlock,
}: {
  locked: boolean;
  failed: boolean;
  onUnlock(): void;
}) {
  return (
    <section class="card placeholder" aria-live="polite">
      <div class="placeholder-body">
        <span class="placeholder-glyph" aria-hidden="true">
          {locked ? '◆' : failed ? '⚠' : '◌'}
        </span>
        {locked ? (
          <p>
            <strong>The API needs a token.</strong> This daemon has <code>web.authToken</code> set.{' '}
            <button type="button" class="btn btn-primary" onClick={onUnlock}>
              Enter token
            </button>
          </p>
        ) : failed ? (
          <p>
            <strong>No answer from the daemon.</strong> Retrying…
          </p>
        ) : (
          <p>
            <strong>Connecting to the daemon…</strong>
          </p>
        )}
      </div>
    </section>
  );
}
