// Citations of the behaviour rules in code comments: a comment names a file of docs/, optionally
// with a heading (`docs/stock-rules.md#transfers`), and every such name must resolve. The old
// numbered citations (a section sign and a number) pointed at a note outside the repository; none
// may remain.
import { readFileSync, readdirSync } from 'node:fs';
import { extname, join, relative } from 'node:path';
import ts from 'typescript';

const SOURCE_EXTENSIONS = new Set(['.ts', '.tsx', '.mts', '.cts', '.js', '.mjs', '.cjs']);

/**
 * Folders that hold no sources: installed packages, build output, and the other generated,
 * git-ignored folders (coverage, test reports, local databases, the Nx cache, git itself).
 */
export const SKIPPED_FOLDERS: ReadonlySet<string> = new Set(['node_modules', 'dist', 'coverage', 'reports', 'data']);

/**
 * Every source file under `root`, as paths relative to it, sorted.
 *
 * @example sourceFiles('/repo') // ['apps/gateway/src/main.ts', …]
 */
export function sourceFiles(root: string): string[] {
  const found: string[] = [];
  const walk = (folder: string): void => {
    for (const entry of readdirSync(folder, { withFileTypes: true })) {
      if (entry.name.startsWith('.') || SKIPPED_FOLDERS.has(entry.name)) continue;
      const path = join(folder, entry.name);
      if (entry.isDirectory()) walk(path);
      else if (entry.isFile() && SOURCE_EXTENSIONS.has(extname(entry.name)) && !entry.name.endsWith('.d.ts')) found.push(relative(root, path));
    }
  };
  walk(root);
  return found.sort();
}

/** One comment of a source file: its text and the 1-based line it starts on. */
export interface SourceComment {
  /** Offset in the text, for ordering. */
  pos: number;
  line: number;
  text: string;
}

/**
 * Every comment of a TypeScript or JavaScript text, found by the compiler's own parser, so text in
 * strings, templates and regular expressions is never mistaken for a comment.
 *
 * @example commentsOf('a.ts', "const s = '// no'; // yes") // [{ pos: 19, line: 1, text: '// yes' }]
 */
export function commentsOf(fileName: string, text: string): SourceComment[] {
  const kind = /\.[cm]?js$/.test(fileName) ? ts.ScriptKind.JS : ts.ScriptKind.TS;
  const source = ts.createSourceFile(fileName, text, ts.ScriptTarget.Latest, true, kind);
  const starts = new Set<number>();
  const comments: SourceComment[] = [];
  const collect = (ranges: readonly ts.CommentRange[] | undefined): void => {
    for (const range of ranges ?? []) {
      if (starts.has(range.pos)) continue;
      starts.add(range.pos);
      comments.push({ pos: range.pos, line: source.getLineAndCharacterOfPosition(range.pos).line + 1, text: text.slice(range.pos, range.end) });
    }
  };
  // Every comment stands before some token (or the end of the file), so the leading comments of
  // every node and token, plus the trailing ones, are all of them.
  const visit = (node: ts.Node): void => {
    collect(ts.getLeadingCommentRanges(text, node.pos));
    collect(ts.getTrailingCommentRanges(text, node.end));
    for (const child of node.getChildren(source)) visit(child);
  };
  visit(source);
  return comments.sort((a, b) => a.pos - b.pos);
}

/** A `docs/<file>.md` name in a comment, with the heading anchor when it has one. */
export interface DocCitation {
  file: string;
  anchor: string | null;
}

const DOC_CITATION = /(?<![\w./-])docs\/([\w./-]+?\.md)(?:#([\w-]+))?/g;
const NUMBERED_CITATION = /§\s*\d+/;

/** @example docCitations('see docs/stock-rules.md#transfers') // [{ file: 'docs/stock-rules.md', anchor: 'transfers' }] */
export function docCitations(comment: string): DocCitation[] {
  return [...comment.matchAll(DOC_CITATION)].map((m) => ({ file: `docs/${m[1]}`, anchor: m[2] ?? null }));
}

/** True when a comment still cites a numbered section: a section sign followed by a number. */
export function hasNumberedCitation(comment: string): boolean {
  return NUMBERED_CITATION.test(comment);
}

/**
 * The anchors of a Markdown file's headings, as GitHub makes them: lower case, punctuation but
 * `-` and `_` dropped, spaces as `-`, a repeated anchor numbered `-1`, `-2`…; headings inside
 * fenced code are not headings.
 *
 * @example headingAnchors('# Errors\n## Retry-After\n') // Set { 'errors', 'retry-after' }
 */
export function headingAnchors(markdown: string): Set<string> {
  const anchors = new Set<string>();
  const seen = new Map<string, number>();
  let fenced = false;
  for (const line of markdown.split('\n')) {
    if (/^\s*(```|~~~)/.test(line)) fenced = !fenced;
    const heading = fenced ? null : /^#{1,6}\s+(.*?)\s*#*\s*$/.exec(line);
    if (!heading) continue;
    const base = heading[1]!.toLowerCase().replace(/[^\p{L}\p{N}\p{M}\s_-]/gu, '').replace(/\s/g, '-');
    const count = seen.get(base) ?? 0;
    seen.set(base, count + 1);
    anchors.add(count === 0 ? base : `${base}-${count}`);
  }
  return anchors;
}

/** A citation that does not resolve, or a numbered one left over. */
export interface CitationProblem {
  file: string;
  line: number;
  problem: string;
}

/**
 * Checks every comment of every source file under `root` against its `docs/` folder.
 *
 * @example checkDocCitations('/repo') // [] when every citation resolves
 */
export function checkDocCitations(root: string): CitationProblem[] {
  const anchorsOf = new Map<string, Set<string> | null>();
  const anchors = (file: string): Set<string> | null => {
    if (!anchorsOf.has(file)) {
      let markdown: string | null = null;
      try {
        markdown = readFileSync(join(root, file), 'utf8');
      } catch {
        markdown = null;
      }
      anchorsOf.set(file, markdown === null ? null : headingAnchors(markdown));
    }
    return anchorsOf.get(file)!;
  };
  const problems: CitationProblem[] = [];
  for (const file of sourceFiles(root)) {
    for (const comment of commentsOf(file, readFileSync(join(root, file), 'utf8'))) {
      if (hasNumberedCitation(comment.text)) {
        problems.push({ file, line: comment.line, problem: `cites a numbered section (§N): name the docs/ file instead` });
      }
      for (const citation of docCitations(comment.text)) {
        const known = anchors(citation.file);
        if (known === null) problems.push({ file, line: comment.line, problem: `cites ${citation.file}, which does not exist` });
        else if (citation.anchor !== null && !known.has(citation.anchor)) {
          problems.push({ file, line: comment.line, problem: `cites ${citation.file}#${citation.anchor}, a heading ${citation.file} does not have` });
        }
      }
    }
  }
  return problems;
}
