/**
 * Prints one plain closing line, `tests: N passed, N failed, N skipped`, for CI logs, and before
 * it the slowest files (where the suite's time goes: GAMEPILOT_SLOWEST=N lines, 20 by default,
 * 0 for none). When
 * GAMEPILOT_TEST_FAILURES names a file, each failed test (file › name: the first line of its
 * error) is written there too, so `npm test` can repeat them after every other suite's output —
 * where a CI log's tail shows them.
 */
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import type { Reporter, SerializedError, TestModule } from 'vitest/node';

export default class SummaryReporter implements Reporter {
  onTestRunEnd(modules: ReadonlyArray<TestModule>, unhandledErrors: ReadonlyArray<SerializedError> = []) {
    let passed = 0;
    let failed = 0;
    let skipped = 0;
    const failures: string[] = [];
    const firstLine = (errors: readonly { message?: string }[] | undefined) =>
      (errors?.[0]?.message ?? 'failed').split('\n')[0]!.slice(0, 300);
    for (const m of modules) {
      const file = path.relative(process.cwd(), m.moduleId);
      for (const t of m.children.allTests()) {
        const result = t.result();
        if (result.state === 'passed') passed++;
        else if (result.state === 'failed') {
          failed++;
          failures.push(`${file} › ${t.fullName}: ${firstLine(result.errors)}`);
        } else skipped++;
      }
      // A file that failed outside its tests (an import, a hook) counts once, even when its
      // tests only show as skipped. A describe's beforeAll or afterAll error is the describe's,
      // not the module's: it is looked for there too, so the line names what failed.
      if (m.state() === 'failed' && ![...m.children.allTests()].some((t) => t.result().state === 'failed')) {
        failed++;
        const suite = [...m.children.allSuites()].find((s) => s.errors().length);
        const where = suite && !m.errors().length ? ` › ${suite.fullName} (a hook)` : '';
        failures.push(`${file}${where}: ${firstLine(m.errors().length ? m.errors() : suite?.errors())}`);
      }
    }
    for (const e of unhandledErrors) {
      failed++;
      failures.push(`unhandled error: ${firstLine([e])}`);
    }
    process.stdout.write(slowest(modules));
    process.stdout.write(`\ntests: ${passed} passed, ${failed} failed, ${skipped} skipped\n`);
    const out = process.env.GAMEPILOT_TEST_FAILURES;
    if (out) writeFileSync(out, failures.map((f) => `${f}\n`).join(''));
  }
}

/** The slowest files, one line each: seconds (tests and hooks, plus setup and import), project, path. */
function slowest(modules: ReadonlyArray<TestModule>): string {
  const n = Number(process.env.GAMEPILOT_SLOWEST ?? 20);
  if (!(n > 0) || modules.length < 2) return '';
  const rows = modules.map((m) => {
    const d = m.diagnostic();
    const ms = d.duration + d.setupDuration + d.collectDuration + d.prepareDuration + d.environmentSetupDuration;
    return {
      ms,
      line: `${(ms / 1000).toFixed(1).padStart(7)} s  ${m.project.name.padEnd(11)} ${path.relative(process.cwd(), m.moduleId)}`,
    };
  });
  const top = rows.sort((a, b) => b.ms - a.ms).slice(0, n);
  const total = rows.reduce((sum, r) => sum + r.ms, 0) / 1000;
  return `\nslowest ${top.length} of ${rows.length} files (all files: ${total.toFixed(0)} s of worker time):\n${top.map((r) => r.line).join('\n')}\n`;
}
