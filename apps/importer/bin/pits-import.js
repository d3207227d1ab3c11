#!/usr/bin/env node
// The data team's `pits-import` command: runs the built CLI (dist/main.js) in this process, with
// no Nx and no build step in the path, so it never prompts and prints only the importer's output.
// This file is committed (dist/ is not) so that `npm ci` links it into node_modules/.bin on a
// fresh clone: npm skips a bin whose file does not exist yet at install time.
import { existsSync } from 'node:fs';

const main = new URL('../dist/main.js', import.meta.url);
if (existsSync(main)) {
  await import(main.href);
} else {
  process.stderr.write('error: pits-import is not built yet: run `npm run build` in the repository root first\n');
  process.exitCode = 2;
}
