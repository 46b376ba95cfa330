// `streamPrefix` substitution with Python str.format brace rules (spec 02 §4.3). Pure.
import type { StreamName } from './types.ts';

const PLACEHOLDER = /\{\{|\}\}|\{([^{}]*)\}/g;

/**
 * `{job_name}` and `{stream_name}` are substituted, `{{`/`}}` become single braces. Config
 * validation rejects anything else; at run time an unknown `{...}` is left as written.
 */
export function formatStreamPrefix(template: string, jobName: string, stream: StreamName): string {
  return template.replace(PLACEHOLDER, (match: string, field: string | undefined) => {
    if (match === '{{') return '{';
    if (match === '}}') return '}';
    if (field === 'job_name') return jobName;
    if (field === 'stream_name') return stream;
    return match;
  });
}

/** Null when the template only uses the two placeholders and doubled braces; else why not. */
export function streamPrefixProblem(template: string): string | null {
  let i = 0;
  while (i < template.length) {
    const c = template[i];
    if (c === '{' || c === '}') {
      if (template[i + 1] === c) {
        i += 2;
        continue;
      }
      if (c === '}') return `single '}' at offset ${i}`;
      const close = template.indexOf('}', i);
      const field = close < 0 ? null : template.slice(i + 1, close);
      if (field !== 'job_name' && field !== 'stream_name') {
        return close < 0
          ? `unclosed '{' at offset ${i}`
          : `unknown placeholder '{${field}}' (only {job_name} and {stream_name})`;
      }
      i = close + 1;
      continue;
    }
    i += 1;
  }
  return null;
}
