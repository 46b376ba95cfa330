// Reports every test that failed and then passed on its retry. The suite retries a failed test
// once (vitest.config.ts) because a few end-to-end tests race real daemons on a loaded 2-core CI
// machine; a retry must not hide the failure, so this lists each one, with the first attempt's
// error, at the end of the run.
import type { Reporter, TestCase } from 'vitest/node';

interface Flake {
  where: string;
  retries: number;
  errors: string[];
}

export default class FlakyReporter implements Reporter {
  private readonly flakes: Flake[] = [];

  onTestCaseResult(test: TestCase): void {
    const diag = test.diagnostic();
    const result = test.result();
    if (!diag?.flaky || result.state !== 'passed') return;
    this.flakes.push({
      where: `${test.module.moduleId.replace(`${process.cwd()}/`, '')} > ${test.fullName}`,
      retries: diag.retryCount,
      // Twelve lines, not one: a property test's first line is only "Property failed after N
      // tests"; its seed, counterexample and the error it hit follow on the next lines.
      errors: (result.errors ?? []).map((e) => {
        const cause = (e as { cause?: { message?: string } }).cause?.message;
        const text = cause ? `${e.message ?? String(e)}\ncaused by: ${cause}` : (e.message ?? String(e));
        return text.split('\n').slice(0, 14).join('\n      ').slice(0, 2000);
      }),
    });
  }

  onTestRunEnd(): void {
    if (this.flakes.length === 0) return;
    const lines = [`\nFLAKY: ${this.flakes.length} test(s) passed only on a retry:`];
    for (const f of this.flakes) {
      lines.push(`  ${f.where} (retried ${f.retries}x)`);
      for (const e of f.errors) lines.push(`    first attempt: ${e}`);
    }
    process.stderr.write(`${lines.join('\n')}\n`);
  }
}
