// The documentation checked both ways: its links and the repository paths it names resolve, and
// every file of docs/ is reachable from an index.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkDocIndex, checkDocLinks, checkDocPaths, codeSpans, markdownLinks } from './doc-links.js';

const ROOT = join(import.meta.dirname, '..', '..', '..');

describe('the repository', () => {
  it('links from README.md and docs/ only to files and headings that exist', () => {
    expect(checkDocLinks(ROOT)).toEqual([]);
  });

  it('names in README.md and docs/ only repository paths that exist', () => {
    expect(checkDocPaths(ROOT)).toEqual([]);
  });

  it('links every file of docs/ from docs/README.md or README.md', () => {
    expect(checkDocIndex(ROOT)).toEqual([]);
  });
});

describe('markdownLinks', () => {
  it('reads inline links (with a title or angle brackets) and reference definitions, not code spans or fenced code', () => {
    const markdown = [
      '[a](x.md#y) and [b](<y z.md> "title") `[c](in-code.md)`',
      '```',
      '[d](in-fence.md)',
      '```',
      '[e]: ref.md',
    ].join('\n');
    expect(markdownLinks(markdown)).toEqual([
      { line: 1, text: 'x.md#y' },
      { line: 1, text: 'y z.md' },
      { line: 5, text: 'ref.md' },
    ]);
  });
});

describe('codeSpans', () => {
  it('finds the code spans of prose, trimmed, and none in fenced code', () => {
    expect(codeSpans('`a/b.ts` and `` c `d` ``\n```\n`e/f.ts`\n```\n')).toEqual([
      { line: 1, text: 'a/b.ts' },
      { line: 1, text: 'c `d`' },
    ]);
  });
});

describe('the checks on a small repository', () => {
  const root = mkdtempSync(join(tmpdir(), 'doc-links-'));
  const write = (path: string, text: string): void => {
    mkdirSync(join(root, path, '..'), { recursive: true });
    writeFileSync(join(root, path), text);
  };
  beforeAll(() => {
    write('README.md', '# Service\n## Running\n[index](docs/README.md) [gone](docs/gone.md) [nope](docs/errors.md#nope) [self](#running) [out](../elsewhere.md)\n');
    write(join('docs', 'README.md'), '# Docs\n[errors](errors.md#retry-after) [holds](holds.md)\n');
    write(join('docs', 'errors.md'), '# Errors\n## Retry-After\n[up](../README.md#nowhere) [app](../apps/gateway/) [web](https://example.com/x.md#y)\n```\n[fenced](fenced.md)\n```\n');
    write(join('docs', 'holds.md'), '# Holds\n[lots](lots.md)\n`apps/gateway/src/main.ts` `apps/gateway/src/gone.ts` `docs/errors.md#retry-after` `docs/errors.md#deadlines`\n');
    write(join('docs', 'lots.md'), '# Lots\n`packages/x/dist/index.js` `apps/<area>-routes.ts` `./local.csv` `text/csv` `apps/gateway/src/main.ts:12`\n');
    write(join('apps', 'gateway', 'src', 'main.ts'), 'export {};\n');
  });
  afterAll(() => rmSync(root, { recursive: true, force: true }));

  it('reports links to missing files, headings and places outside the repository from README.md and docs/, and follows no web address or fenced example', () => {
    expect(checkDocLinks(root)).toEqual([
      { file: 'README.md', line: 3, problem: `links to ${join('docs', 'gone.md')}, which does not exist` },
      { file: 'README.md', line: 3, problem: `links to ${join('docs', 'errors.md')}#nope, a heading it does not have` },
      { file: 'README.md', line: 3, problem: `links to ${join('..', 'elsewhere.md')}, outside the repository` },
      { file: join('docs', 'errors.md'), line: 3, problem: 'links to README.md#nowhere, a heading it does not have' },
    ]);
  });

  it('reports repository paths in code spans that do not exist, and leaves build output, placeholders and other paths alone', () => {
    expect(checkDocPaths(root)).toEqual([
      { file: join('docs', 'holds.md'), line: 3, problem: `names ${join('apps', 'gateway', 'src', 'gone.ts')}, which does not exist` },
      { file: join('docs', 'holds.md'), line: 3, problem: `names ${join('docs', 'errors.md')}#deadlines, a heading it does not have` },
    ]);
  });

  it('reports a file of docs/ that only another doc links to, and one nothing links to', () => {
    write(join('docs', 'orphan.md'), '# Orphan\n');
    expect(checkDocIndex(root)).toEqual([
      { file: join('docs', 'lots.md'), line: 1, problem: 'is linked from neither docs/README.md nor README.md' },
      { file: join('docs', 'orphan.md'), line: 1, problem: 'is linked from neither docs/README.md nor README.md' },
    ]);
  });
});
