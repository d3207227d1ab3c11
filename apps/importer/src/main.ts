#!/usr/bin/env node
// The `pits-import` command (bin of @pits/importer); everything happens in runCli.
import { runCli } from './cli.js';

process.exitCode = await runCli(process.argv.slice(2), { stdout: process.stdout, stderr: process.stderr, env: process.env, cwd: process.cwd() });
