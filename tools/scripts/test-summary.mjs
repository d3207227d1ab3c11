#!/usr/bin/env node
// Prints one closing summary over every project's vitest JSON report (reports/vitest/*.json):
// the counts per project, per database dialect (tests named "[sqlite]" / "[postgres]"), and a final
// "Tests: N passed, N failed, N skipped" line. Exits non-zero when any test failed or nothing ran.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

const dir = join(import.meta.dirname, '..', '..', 'reports', 'vitest');
let files = [];
try {
  files = readdirSync(dir).filter((f) => f.endsWith('.json')).sort();
} catch {
  console.error(`test-summary: no reports in ${dir}`);
  process.exit(1);
}

const total = { passed: 0, failed: 0, skipped: 0 };
const dialects = {};
const rows = [];
for (const file of files) {
  const report = JSON.parse(readFileSync(join(dir, file), 'utf8'));
  const counts = { passed: 0, failed: 0, skipped: 0 };
  for (const suite of report.testResults ?? []) {
    for (const t of suite.assertionResults ?? []) {
      const outcome = t.status === 'passed' ? 'passed' : t.status === 'failed' ? 'failed' : 'skipped';
      counts[outcome] += 1;
      const name = [...(t.ancestorTitles ?? []), t.title].join(' ');
      const dialect = /\[(sqlite|postgres)\]/.exec(name)?.[1];
      if (dialect) {
        dialects[dialect] ??= { passed: 0, failed: 0, skipped: 0 };
        dialects[dialect][outcome] += 1;
      }
    }
    if (suite.status === 'failed' && (suite.assertionResults ?? []).length === 0) counts.failed += 1;
  }
  rows.push([file.replace(/\.json$/, ''), counts]);
  for (const k of Object.keys(total)) total[k] += counts[k];
}

const line = (c) => `${c.passed} passed, ${c.failed} failed, ${c.skipped} skipped`;
const width = Math.max(14, ...rows.map(([name]) => name.length));
console.log('\nTest summary');
for (const [name, c] of rows) console.log(`  project ${name.padEnd(width)} ${line(c)}`);
for (const [name, c] of Object.entries(dialects)) console.log(`  dialect ${name.padEnd(width)} ${line(c)}`);
console.log(`Tests: ${line(total)}`);
process.exit(total.failed > 0 || total.passed === 0 ? 1 : 0);
