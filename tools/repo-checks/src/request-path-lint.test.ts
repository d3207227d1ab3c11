// The request path builds no object as a spread followed by more fields (eslint.config.js,
// docs/changing-the-code.md): checked here too, so that the test run refuses what `npm run lint`
// refuses, and a rule dropped from the configuration fails a test.
import { join } from 'node:path';
import { ESLint } from 'eslint';
import { describe, expect, it } from 'vitest';

const ROOT = join(import.meta.dirname, '..', '..', '..');
const RULE = 'no-restricted-syntax';
const eslint = new ESLint({ cwd: ROOT });

async function spreadRefusals(text: string, filePath: string): Promise<number> {
  const [result] = await eslint.lintText(text, { filePath: join(ROOT, filePath) });
  return result!.messages.filter((m) => m.ruleId === RULE).length;
}

describe('the request-path rule', () => {
  const built = 'export const f = (a: { x: number }, b: { y: number }) => [{ ...a, y: 1 }, { ...a, ...b }, { y: 1, ...a }, { ...a }];\n';

  it('refuses a spread followed by a field or a second spread, and nothing else, on the request path', async () => {
    expect(await spreadRefusals(built, 'packages/persistence/src/repositories/adjustment-repository.ts')).toBe(2);
    expect(await spreadRefusals(built, 'apps/gateway/src/routes/stock-routes.ts')).toBe(2);
    expect(await spreadRefusals(built, 'packages/domain/src/pagination.ts')).toBe(2);
  }, 60_000);

  it('leaves tests and code off the request path alone', async () => {
    expect(await spreadRefusals(built, 'packages/persistence/src/repositories/adjustment-repository.test.ts')).toBe(0);
    expect(await spreadRefusals(built, 'packages/contract/src/adjustment-schemas.ts')).toBe(0);
  }, 60_000);

  it('finds no such object in the files it covers', async () => {
    const results = await eslint.lintFiles(['packages/domain/src', 'packages/http-edge/src', 'apps/gateway/src/http', 'apps/gateway/src/routes', 'packages/persistence/src']);
    const refused = results.flatMap((r) => r.messages.filter((m) => m.ruleId === RULE).map((m) => `${r.filePath.slice(ROOT.length + 1)}:${m.line}`));
    expect(refused).toEqual([]);
  }, 120_000);
});
