// The e2e files' one accessibility scan: axe-core's WCAG 2 A/AA rules run inside the page on one
// part of the dashboard, findings returned as readable lines so `toEqual([])` prints them on failure.
import { createRequire } from 'node:module';
import type { Page } from 'playwright-core';

const AXE_SCRIPT = createRequire(import.meta.url).resolve('axe-core/axe.min.js');

export interface AxeScan {
  /** Prefix of every line, e.g. the theme and view scanned. */
  label?: string;
  /** Only these impacts count (default: every violation). */
  impacts?: readonly string[];
  /** Run only these rules instead of every WCAG 2 A/AA rule (e.g. the colour rules, per theme). */
  rules?: readonly string[];
}

/**
 * The WCAG 2 A/AA rules whose verdict depends on colour. A theme swaps colours only (CSS custom
 * properties), so the structural rules (names, roles, labels, order) answer the same in every theme:
 * a caller scans everything once and these in each further theme, at a fraction of the cost.
 */
export const COLOUR_RULES = ['color-contrast', 'link-in-text-block'] as const;

/**
 * Violations inside `selector` (default: the whole document) as "label rule: target — why" lines, at
 * most three nodes per rule. Throws when axe checked nothing there: a wrong selector must not pass.
 */
export async function axeViolations(
  page: Page,
  selector = 'document',
  scan: AxeScan = {},
): Promise<string[]> {
  if (!(await page.evaluate('typeof window.axe !== "undefined"')))
    await page.addScriptTag({ path: AXE_SCRIPT });
  const context = selector === 'document' ? 'document' : JSON.stringify(selector);
  const only = scan.rules
    ? `{ type: 'rule', values: ${JSON.stringify(scan.rules)} }`
    : `{ type: 'tag', values: ['wcag2a', 'wcag2aa'] }`;
  const r = (await page.evaluate(
    `axe.run(${context}, { runOnly: ${only} }).then((r) => ({
      passes: r.passes.length,
      violations: r.violations.map((v) => ({
        id: v.id,
        impact: v.impact,
        nodes: v.nodes.map((n) => ({ target: n.target.join(' '), why: (n.failureSummary.split('\\n')[1] ?? '').trim() })),
      })),
    }))`,
  )) as {
    passes: number;
    violations: { id: string; impact: string | null; nodes: { target: string; why: string }[] }[];
  };
  if (r.passes === 0) throw new Error(`axe checked nothing in ${selector}`);
  const prefix = scan.label ? `${scan.label}: ` : '';
  return r.violations
    .filter((v) => !scan.impacts || (v.impact !== null && scan.impacts.includes(v.impact)))
    .flatMap((v) => v.nodes.slice(0, 3).map((n) => `${prefix}${v.id} ${n.target} — ${n.why}`.trimEnd()));
}
