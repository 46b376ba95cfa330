// The default report templates (reporting spec §9.5), as literal Jinja-syntax sources.
//
// A template source loses exactly one trailing newline before rendering (§9.3), so every
// standalone default ends with one extra `\n` that rendering removes, exactly as a YAML
// `|` block would.

/** `Cron job '<name>' completed` / `Cron job '<name>' failed`. */
export const DEFAULT_SUBJECT = "Cron job '{{ name }}' {% if success %}completed{% else %}failed{% endif %}";

/**
 * The body text as it renders in the middle of a template (its final newline included):
 * a blank line, the fail reason and a blank line when failed, then the output, then `\n`.
 */
const BODY_TEXT =
  '\n' +
  '{% if fail_reason %}(job failed because {{ fail_reason }})\n{% endif %}' +
  '\n' +
  '{% if stdout and stderr %}STDOUT:\n---\n{{ stdout }}\n---\nSTDERR:\n{{ stderr }}' +
  '{% elif stdout %}{{ stdout }}' +
  '{% elif stderr %}{{ stderr }}' +
  '{% else %}(no output was captured){% endif %}' +
  '\n';

/** Default mail body. */
export const DEFAULT_BODY = `${BODY_TEXT}\n`;

/** Default sentry body: the default subject, a newline, the default body (one template). */
export const DEFAULT_SENTRY_BODY = `${DEFAULT_SUBJECT}\n${BODY_TEXT}\n`;

/**
 * Default webhook body: `{"text": X}` with X the `tojson` encoding of subject + newline +
 * body. The filter block encloses the body's final newline, so the text carries one more
 * trailing `\n` than the sentry body.
 */
export const DEFAULT_WEBHOOK_BODY = `{"text": {% filter tojson %}${DEFAULT_SUBJECT}\n${BODY_TEXT}\n{% endfilter %}}`;

/** Default sentry fingerprint (a configured list replaces it). */
export const DEFAULT_SENTRY_FINGERPRINT: readonly string[] = [
  'cronstable',
  '{{ environment.HOSTNAME }}',
  '{{ name }}',
];
