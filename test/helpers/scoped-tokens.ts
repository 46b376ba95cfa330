// The scoped bearer tokens of spec 10 §8's Setup T, as `web:` config lines, so that every test on a
// scoped daemon grants (and so asserts against) the same labels, scopes and secrets.

/** `wall` holds view (viewtok) and `ci` control (ctltok): what every Setup T test calls with. */
const VIEW_AND_CONTROL = [
  'authTokens:',
  '  - label: wall',
  '    scopes:',
  '      - view',
  '    value: viewtok',
  '  - label: ci',
  '    scopes:',
  '      - control',
  '    value: ctltok',
];

const ANONYMOUS_VIEW = ['anonymousScopes:', '  - view'];

/**
 * The lines under `web:` (unindented) for the view and control tokens with anonymous view. With
 * `approverFile`, the whole of Setup T: also `approver` (approve, its secret read from that file) and an
 * unlabelled view token `nolabel`.
 */
export function scopedTokenLines(approverFile?: string): string[] {
  const more =
    approverFile === undefined
      ? []
      : [
          '  - label: approver',
          '    scopes:',
          '      - approve',
          `    fromFile: ${approverFile}`,
          '  - scopes:',
          '      - view',
          '    value: nolabel',
        ];
  return [...VIEW_AND_CONTROL, ...more, ...ANONYMOUS_VIEW];
}

/** The same lines as YAML text indented to sit under a `web:` key, each ending in a newline. */
export function scopedTokensYaml(approverFile?: string): string {
  return scopedTokenLines(approverFile)
    .map((l) => `  ${l}\n`)
    .join('');
}
