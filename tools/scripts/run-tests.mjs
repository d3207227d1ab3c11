#!/usr/bin/env node
// The one test command (npm test): clears old reports, runs every project's tests through Nx one
// project at a time (the machine has two cores and the database suites share one PostgreSQL), then
// prints the combined summary. Exits non-zero when Nx or any test failed.
import { spawnSync } from 'node:child_process';
import { rmSync } from 'node:fs';
import { join } from 'node:path';

const root = join(import.meta.dirname, '..', '..');
rmSync(join(root, 'reports', 'vitest'), { recursive: true, force: true });

const started = Date.now();
const nx = spawnSync(
  'npx',
  ['nx', 'run-many', '-t', 'test', '--parallel=1', '--outputStyle=static', ...process.argv.slice(2)],
  { cwd: root, stdio: 'inherit', env: { ...process.env, NX_NO_CLOUD: 'true', NX_DAEMON: 'false' } },
);
const summary = spawnSync(process.execPath, [join(import.meta.dirname, 'test-summary.mjs')], { cwd: root, stdio: 'inherit' });
console.log(`Duration: ${((Date.now() - started) / 1000).toFixed(1)} s`);
process.exit(nx.status !== 0 ? nx.status || 1 : summary.status ?? 1);
