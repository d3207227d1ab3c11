#!/usr/bin/env node
// Builds the publishable package into dist/: index.js, the client bundled by esbuild with only
// @trpc/client left to import, and index.d.ts, one declaration file bundled by dts-bundle-generator
// from the workspace's built declarations, with only @trpc/client and @trpc/server left to import.
// The workspace packages must be built first: `npx nx run @pits/internal-api-client:build` does
// both, and `npm pack` runs this script (prepack).
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { generateDtsBundle } from 'dts-bundle-generator';
import { build } from 'esbuild';

const here = import.meta.dirname;
const dist = join(here, 'dist');
/** What a consumer installs beside this package: its peer dependencies, and nothing else. */
const PEERS = Object.keys(JSON.parse(readFileSync(join(here, 'package.json'), 'utf8')).peerDependencies);

const builtClient = join(here, '..', '..', 'apps', 'internal-api', 'dist', 'client.d.ts');
if (!existsSync(builtClient)) {
  console.error(`${relative(process.cwd(), builtClient)} is missing: build the workspace first (npx nx run @pits/internal-api-client:build)`);
  process.exit(1);
}

/** Every module a file imports, statically, dynamically or in an `import("…")` type. */
function importedModules(text) {
  const found = new Set();
  for (const m of text.matchAll(/\bfrom\s+['"]([^'"]+)['"]|\bimport\s*\(\s*['"]([^'"]+)['"]\s*\)|^\s*import\s+['"]([^'"]+)['"]/gm)) found.add(m[1] ?? m[2] ?? m[3]);
  for (const m of text.matchAll(/\/\/\/\s*<reference\s+(?:types|path)="([^"]+)"/g)) found.add(m[1]);
  return [...found];
}

/** Fails the build when the output would need anything but `allowed` at install time. */
function requireOnly(file, allowed) {
  const extra = importedModules(readFileSync(file, 'utf8')).filter((name) => !allowed.includes(name));
  if (extra.length > 0) {
    console.error(`${relative(here, file)} imports ${extra.join(', ')}: a consumer would need them, and may import only ${allowed.join(', ')}`);
    process.exit(1);
  }
}

rmSync(dist, { recursive: true, force: true });
mkdirSync(dist, { recursive: true });

await build({
  entryPoints: [join(here, 'src', 'index.ts')],
  outfile: join(dist, 'index.js'),
  bundle: true,
  platform: 'node',
  format: 'esm',
  target: 'node20',
  external: PEERS,
  // The built client (dist/client.js), the same code the workspace runs.
  conditions: [],
  legalComments: 'none',
  logLevel: 'warning',
});
requireOnly(join(dist, 'index.js'), PEERS);

// Workspace files are inlined (they resolve outside node_modules); every library stays an import
// (an @types package a `/// <reference>`), which requireOnly refuses unless it is a peer.
const [declarations] = generateDtsBundle(
  [
    {
      filePath: join(here, 'src', 'index.ts'),
      output: { noBanner: true, exportReferencedTypes: false },
    },
  ],
  { preferredConfigPath: join(here, 'tsconfig.bundle.json') },
);
writeFileSync(join(dist, 'index.d.ts'), declarations);
requireOnly(join(dist, 'index.d.ts'), PEERS);

console.log(`built ${relative(process.cwd(), dist)}: index.js, index.d.ts (imports only ${PEERS.join(', ')})`);
