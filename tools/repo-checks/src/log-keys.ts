// Log field names: every process writes one schema of snake_case keys (README, "One log schema";
// packages/service-runtime/src/log-fields.ts). This finds the keys that source code writes in an
// object literal passed to a logger call (`logger.info({ ... }, 'msg')`, `.child({ ... })`), with
// the compiler's parser, and names every key that is not snake_case.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import ts from 'typescript';
import { sourceFiles } from './doc-citations.js';

const LOG_METHODS = new Set(['trace', 'debug', 'info', 'warn', 'error', 'fatal', 'child']);
/** What a receiver of those methods is called when it is a logger. */
const LOGGER_NAME = /(^|\.)(logger|log|[a-z]+Logger)$/i;
const SNAKE_CASE = /^[a-z][a-z0-9]*(_[a-z0-9]+)*$/;

/** A key a log call writes that is not snake_case, where it is written. */
export interface LogKeyProblem {
  file: string;
  line: number;
  key: string;
}

/**
 * The non-snake_case keys of the object literals passed to logger calls in one source text.
 *
 * @example logKeyProblems('a.ts', "logger.info({ workerId }, 'up')") // [{ file: 'a.ts', line: 1, key: 'workerId' }]
 */
export function logKeyProblems(fileName: string, text: string): LogKeyProblem[] {
  const kind = /\.[cm]?js$/.test(fileName) ? ts.ScriptKind.JS : ts.ScriptKind.TS;
  const source = ts.createSourceFile(fileName, text, ts.ScriptTarget.Latest, true, kind);
  const problems: LogKeyProblem[] = [];
  const visit = (node: ts.Node): void => {
    if (ts.isCallExpression(node) && ts.isPropertyAccessExpression(node.expression) && LOG_METHODS.has(node.expression.name.text)
      && LOGGER_NAME.test(node.expression.expression.getText(source))) {
      const first = node.arguments[0];
      if (first !== undefined && ts.isObjectLiteralExpression(first)) {
        for (const property of first.properties) {
          if (ts.isSpreadAssignment(property) || property.name === undefined) continue;
          const key = ts.isIdentifier(property.name) || ts.isStringLiteral(property.name) ? property.name.text : undefined;
          if (key !== undefined && !SNAKE_CASE.test(key)) {
            problems.push({ file: fileName, line: source.getLineAndCharacterOfPosition(property.getStart(source)).line + 1, key });
          }
        }
      }
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return problems;
}

/**
 * Every non-snake_case log key in the repository's sources (tests excluded: they may log as they like).
 *
 * @example expect(checkLogKeys(ROOT)).toEqual([])
 */
export function checkLogKeys(root: string): LogKeyProblem[] {
  return sourceFiles(root)
    .filter((file) => !/\.test\.[cm]?[jt]s$/.test(file))
    .flatMap((file) => logKeyProblems(file, readFileSync(join(root, file), 'utf8')));
}
