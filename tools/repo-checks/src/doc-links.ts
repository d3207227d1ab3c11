// The documentation (README.md and docs/*.md) checked both ways. Outward: every relative link
// resolves to a file of the repository and, with an anchor, to a heading that file has (as GitHub
// makes its anchors), and every repository path a doc names in a code span exists, so a moved file
// cannot leave a doc pointing at its old place. Inward: every file of docs/ is linked from the
// index (docs/README.md) or from README.md, so none is left where no reader finds it.
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { dirname, join, normalize, sep } from 'node:path';
import { type CitationProblem, SKIPPED_FOLDERS, headingAnchors } from './doc-citations.js';

/** The indexes a file of docs/ must be linked from (one of them). */
const INDEXES = ['README.md', join('docs', 'README.md')];

/**
 * README.md and every Markdown file of docs/, as paths relative to `root`, README.md first.
 *
 * @example documentationFiles('/repo') // ['README.md', 'docs/README.md', 'docs/areas.md', …]
 */
export function documentationFiles(root: string): string[] {
  const docs = readdirSync(join(root, 'docs'))
    .filter((name) => name.endsWith('.md'))
    .sort()
    .map((name) => join('docs', name));
  return existsSync(join(root, 'README.md')) ? ['README.md', ...docs] : docs;
}

/** A link target or a code span of a Markdown text, as written, with the 1-based line it is on. */
export interface MarkdownReference {
  line: number;
  text: string;
}

/** `[text](target)` and `[text](<target with spaces> "title")`: the target. */
const INLINE_LINK = /\]\(\s*(?:<([^<>\n]+)>|([^()\s<>]+))(?:\s+(?:"[^"]*"|'[^']*'))?\s*\)/g;
/** `[label]: target` at the start of a line: the target of a reference-style link. */
const LINK_DEFINITION = /^ {0,3}\[[^\]]+\]:\s*<?([^\s<>]+)>?/;
const CODE_SPAN = /(`+)(.+?)\1/g;
const FENCE = /^\s*(```|~~~)/;

/** The lines of a Markdown text outside fenced code, with their 1-based numbers. */
function proseLines(markdown: string): { line: number; text: string }[] {
  const lines: { line: number; text: string }[] = [];
  let fenced = false;
  markdown.split('\n').forEach((text, index) => {
    if (FENCE.test(text)) fenced = !fenced;
    else if (!fenced) lines.push({ line: index + 1, text });
  });
  return lines;
}

/**
 * The link targets of a Markdown text: inline links and reference definitions, never text in
 * code spans or fenced code (an example there is not a link).
 *
 * @example markdownLinks('[a](x.md#y) `[b](z.md)`') // [{ line: 1, text: 'x.md#y' }]
 */
export function markdownLinks(markdown: string): MarkdownReference[] {
  const links: MarkdownReference[] = [];
  for (const { line, text } of proseLines(markdown)) {
    const prose = text.replace(CODE_SPAN, '');
    const definition = LINK_DEFINITION.exec(prose);
    if (definition) links.push({ line, text: definition[1]! });
    for (const match of prose.matchAll(INLINE_LINK)) links.push({ line, text: (match[1] ?? match[2])! });
  }
  return links;
}

/**
 * The code spans of a Markdown text outside fenced code, trimmed.
 *
 * @example codeSpans('see `apps/importer` and `npm start`') // [{ line: 1, text: 'apps/importer' }, { line: 1, text: 'npm start' }]
 */
export function codeSpans(markdown: string): MarkdownReference[] {
  return proseLines(markdown).flatMap(({ line, text }) => [...text.matchAll(CODE_SPAN)].map((match) => ({ line, text: match[2]!.trim() })));
}

const SCHEME = /^[a-z][a-z0-9+.-]*:/i;

/** A link's path as a file name (`%20` is a space); as written when it is no valid escape. */
function decoded(path: string): string {
  try {
    return decodeURI(path);
  } catch {
    return path;
  }
}

/** A link's target split into the repository file it names (relative to `root`) and its anchor. */
function resolveLink(from: string, target: string): { path: string; anchor: string | null } {
  const hash = target.indexOf('#');
  const written = decoded(hash < 0 ? target : target.slice(0, hash));
  const anchor = hash < 0 ? null : target.slice(hash + 1);
  if (written === '') return { path: from, anchor };
  // GitHub reads a leading slash as the repository's root.
  const path = written.startsWith('/') ? normalize(written.slice(1)) : normalize(join(dirname(from), written));
  return { path: path.endsWith(sep) ? path.slice(0, -1) : path, anchor };
}

/** Reads Markdown files of `root` once each, for their heading anchors. */
function anchorReader(root: string): (file: string) => Set<string> {
  const known = new Map<string, Set<string>>();
  return (file) => {
    let anchors = known.get(file);
    if (anchors === undefined) {
      anchors = headingAnchors(readFileSync(join(root, file), 'utf8'));
      known.set(file, anchors);
    }
    return anchors;
  };
}

/** What is wrong with a path (and anchor) a doc points at, or null when it resolves. */
function targetProblem(root: string, path: string, anchor: string | null, anchorsOf: (file: string) => Set<string>): string | null {
  if (path === '..' || path.startsWith(`..${sep}`)) return `${path}, outside the repository`;
  if (!existsSync(join(root, path))) return `${path}, which does not exist`;
  if (anchor !== null && path.endsWith('.md') && !anchorsOf(path).has(anchor)) return `${path}#${anchor}, a heading it does not have`;
  return null;
}

/**
 * Checks the relative links of the documentation (README.md and docs/*.md): each must name a file
 * or folder that exists and, with an anchor into a Markdown file, a heading it has. Links with a
 * scheme (`https:`, `mailto:`) are not followed.
 *
 * @example checkDocLinks('/repo') // [] when every link resolves
 */
export function checkDocLinks(root: string): CitationProblem[] {
  const anchorsOf = anchorReader(root);
  const problems: CitationProblem[] = [];
  for (const file of documentationFiles(root)) {
    for (const link of markdownLinks(readFileSync(join(root, file), 'utf8'))) {
      if (SCHEME.test(link.text)) continue;
      const { path, anchor } = resolveLink(file, link.text);
      const problem = targetProblem(root, path, anchor, anchorsOf);
      if (problem !== null) problems.push({ file, line: link.line, problem: `links to ${problem}` });
    }
  }
  return problems;
}

/** A repository path in a code span (`apps/importer/assets/areas_id.csv.gz`, `docs/holds.md#states-and-expiry`); placeholders (`<area>`, `*`) never match. */
const REPOSITORY_PATH = /^((?:[\w.-]+\/)+[\w.-]*)(?:#([\w-]+)|(?::\d+)+)?$/;

/**
 * Checks the repository paths the documentation names in code spans: a span whose first folder
 * is a folder of `root` (`apps/…`, `packages/…`, `docs/…`) must name a file or folder that exists
 * and, with an anchor into a Markdown file, a heading it has. Build and run output (`dist/`,
 * `reports/`, `data/`) is not checked: it exists only after a build or a run.
 *
 * @example checkDocPaths('/repo') // [] when every named path exists
 */
export function checkDocPaths(root: string): CitationProblem[] {
  const anchorsOf = anchorReader(root);
  const problems: CitationProblem[] = [];
  for (const file of documentationFiles(root)) {
    for (const span of codeSpans(readFileSync(join(root, file), 'utf8'))) {
      const match = REPOSITORY_PATH.exec(span.text);
      if (!match) continue;
      const segments = match[1]!.split('/');
      if (segments.some((segment) => SKIPPED_FOLDERS.has(segment)) || segments[0] === '.' || segments[0] === '..' || !existsSync(join(root, segments[0]!))) continue;
      const problem = targetProblem(root, normalize(match[1]!), match[2] ?? null, anchorsOf);
      if (problem !== null) problems.push({ file, line: span.line, problem: `names ${problem}` });
    }
  }
  return problems;
}

/**
 * Every file of docs/ that neither docs/README.md (the index) nor README.md links to. Links from
 * elsewhere do not count: a reader starts at one of those two.
 *
 * @example checkDocIndex('/repo') // [] when every file of docs/ is linked from an index
 */
export function checkDocIndex(root: string): CitationProblem[] {
  const linked = new Set<string>();
  for (const index of INDEXES.filter((file) => existsSync(join(root, file)))) {
    for (const link of markdownLinks(readFileSync(join(root, index), 'utf8'))) {
      if (!SCHEME.test(link.text)) linked.add(resolveLink(index, link.text).path);
    }
  }
  return documentationFiles(root)
    .filter((file) => file !== 'README.md' && !linked.has(file))
    .map((file) => ({ file, line: 1, problem: 'is linked from neither docs/README.md nor README.md' }));
}
