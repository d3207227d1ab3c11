// Code comments cite the behaviour rules by file and heading of docs/; this keeps every such
// citation resolvable, and refuses the numbered ones (a section sign and a number) that pointed
// outside the repository.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { checkDocCitations, commentsOf, docCitations, hasNumberedCitation, headingAnchors } from './doc-citations.js';

const ROOT = join(import.meta.dirname, '..', '..', '..');

describe('the repository', () => {
  it('cites only docs/ files and headings that exist, and no numbered section', () => {
    expect(checkDocCitations(ROOT)).toEqual([]);
  });
});

describe('commentsOf', () => {
  it('finds line, block and doc comments, and nothing in strings, templates or regular expressions', () => {
    const text = [
      "const a = '// not a comment §1';",
      'const b = `/* nor this §2 */ ${a}`;',
      'const c = /\\/\\/ nor §3/;',
      '// line comment',
      '/** doc comment */',
      'function f() { /* inside */ return [a, b, c]; } // trailing',
      'const empty = { /* alone in braces */ };',
    ].join('\n');
    expect(commentsOf('x.ts', text).map((c) => [c.line, c.text])).toEqual([
      [4, '// line comment'],
      [5, '/** doc comment */'],
      [6, '/* inside */'],
      [6, '// trailing'],
      [7, '/* alone in braces */'],
    ]);
  });
});

describe('docCitations', () => {
  it('reads a file with or without a heading, and ignores paths that only contain docs/', () => {
    expect(docCitations('(docs/input-rules.md) and docs/stock-rules.md#stock-counts.')).toEqual([
      { file: 'docs/input-rules.md', anchor: null },
      { file: 'docs/stock-rules.md', anchor: 'stock-counts' },
    ]);
    expect(docCitations('apps/gateway/src/docs/guide.md')).toEqual([]);
  });

  it('tells numbered citations apart', () => {
    expect(hasNumberedCitation('(decisions §13)')).toBe(true);
    expect(hasNumberedCitation('(docs/input-rules.md)')).toBe(false);
  });
});

describe('headingAnchors', () => {
  it('makes anchors as GitHub does, and skips fenced code', () => {
    const markdown = '# Holds: order reservations\n## Retry-After\n```\n# not a heading\n```\n## Times, dates and `numbers`\n## Retry-After\n';
    expect([...headingAnchors(markdown)]).toEqual(['holds-order-reservations', 'retry-after', 'times-dates-and-numbers', 'retry-after-1']);
  });
});

describe('checkDocCitations', () => {
  const root = mkdtempSync(join(tmpdir(), 'doc-citations-'));
  afterAll(() => rmSync(root, { recursive: true, force: true }));

  it('reports a missing file, a missing heading and a numbered citation, and skips node_modules and dist', () => {
    mkdirSync(join(root, 'docs'));
    writeFileSync(join(root, 'docs', 'errors.md'), '# Errors\n## Retry-After\n');
    mkdirSync(join(root, 'src'));
    writeFileSync(
      join(root, 'src', 'a.ts'),
      ['// fine: docs/errors.md#retry-after', '// gone: docs/holds.md', '// no heading: docs/errors.md#deadlines', '/** old: decisions §3 */', 'export {};'].join('\n'),
    );
    for (const skipped of ['node_modules', 'dist']) {
      mkdirSync(join(root, skipped));
      writeFileSync(join(root, skipped, 'b.js'), '// decisions §1, docs/nothing.md\n');
    }
    expect(checkDocCitations(root)).toEqual([
      { file: join('src', 'a.ts'), line: 2, problem: 'cites docs/holds.md, which does not exist' },
      { file: join('src', 'a.ts'), line: 3, problem: 'cites docs/errors.md#deadlines, a heading docs/errors.md does not have' },
      { file: join('src', 'a.ts'), line: 4, problem: 'cites a numbered section (§N): name the docs/ file instead' },
    ]);
  });
});
