// The document as partners' security reviewers and API gateway imports lint it: Spectral with its
// OpenAPI rules and the OWASP API Security ruleset (.spectral.yaml), and Redocly's recommended rules
// (redocly.yaml), both run from node_modules on the generated document, without the network.
//
// What is left is listed below, finding by finding, and nothing else may appear: warnings only, each
// a truth about the service that a linter reads as a gap (three error fields may repeat a client's
// unchecked input, so they have a length but no pattern; public routes need no key, so they never
// answer 401; a route without input has nothing to refuse with 400 or 422; the probes are never
// counted, so they never answer 429). There is no error.
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { createCredentialCipher } from '@pits/persistence';
import { afterAll, describe, expect, it } from 'vitest';
import { partnerRoutes } from '../routes/partner-routes.js';
import { PUBLIC_ROUTES } from '../routes/public-routes.js';
import { partnerGuide } from './guides.js';
import { buildOpenApiDocument } from './openapi-document.js';

const run = promisify(execFile);
const ROOT = resolve(import.meta.dirname, '../../../..');
const bin = (name: string) => join(ROOT, 'node_modules', '.bin', name);

const routes = partnerRoutes({ cipher: createCredentialCipher('r'.repeat(64)), urlPolicy: { allowPrivate: false }, resolveHost: () => Promise.resolve([]) });
const document = buildOpenApiDocument(routes, PUBLIC_ROUTES, { version: 'lint', description: partnerGuide() });
const PUBLIC_PATHS = new Set(PUBLIC_ROUTES.map((route) => route.path));
const PROBE_PATHS = new Set(PUBLIC_ROUTES.filter((route) => route.probe).map((route) => route.path));

interface Finding {
  tool: 'spectral' | 'redocly';
  rule: string;
  severity: 'error' | 'warning';
  /** JSON pointer-like path into the document. */
  at: string;
}

/** The path of the document's `paths` entry a finding is in, or undefined. */
const pathOf = (at: string): string | undefined => /^paths\/([^/]+)/.exec(at)?.[1]?.replaceAll('~1', '/');

/** Findings that stay, and why (see the header of this file). */
function known(finding: Finding): boolean {
  const path = pathOf(finding.at);
  const isPublic = path !== undefined && PUBLIC_PATHS.has(path);
  switch (finding.rule) {
    // Free text follows the text rule (TEXT_PATTERN), except the error fields that may repeat a
    // client's own unchecked input (an unknown key): those are bounded by the body's size alone.
    case 'owasp:api4:2023-string-restricted':
      return finding.severity === 'warning' && /^components\/schemas\/(ErrorEnvelope\/properties\/error\/properties\/message|FieldIssue\/properties\/(field|issue))$/.test(finding.at);
    // Public routes need no key, so they never answer 401.
    case 'owasp:api8:2023-define-error-responses-401':
      return isPublic;
    // A route without a body, query or tenant has no input to refuse with 400 or 422.
    case 'owasp:api8:2023-define-error-validation':
      return isPublic || path === '/api/partner/v1/webhooks';
    // Probes are never counted against a rate limit, so they never answer 429, and they take no
    // input and no key: no 4xx answer of their own at all.
    case 'owasp:api4:2023-rate-limit-responses-429':
    case 'operation-4xx-response':
      return path !== undefined && PROBE_PATHS.has(path);
    default:
      return false;
  }
}

const dir = mkdtempSync(join(tmpdir(), 'openapi-lint-'));
const file = join(dir, 'openapi.json');
writeFileSync(file, JSON.stringify(document));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** The CLI's stdout whatever its exit status (both exit non-zero when they find something). */
async function output(command: string, args: string[]): Promise<string> {
  const env = { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true', NO_COLOR: '1' };
  try {
    return (await run(command, args, { cwd: ROOT, env, maxBuffer: 256 * 1024 * 1024 })).stdout;
  } catch (error) {
    const { stdout } = error as { stdout?: string };
    if (stdout) return stdout;
    throw error;
  }
}

async function spectral(): Promise<Finding[]> {
  const text = await output(bin('spectral'), ['lint', '--ruleset', join(ROOT, '.spectral.yaml'), '--format', 'json', '--quiet', file]);
  const results = JSON.parse(text) as { code: string; severity: number; path: string[] }[];
  // Spectral's severities: 0 error, 1 warning, 2 information, 3 hint.
  return results
    .filter((r) => r.severity <= 1)
    .map((r) => ({ tool: 'spectral', rule: r.code, severity: r.severity === 0 ? 'error' : 'warning', at: r.path.map((p) => p.replaceAll('/', '~1')).join('/') }));
}

async function redocly(): Promise<Finding[]> {
  const text = await output(bin('redocly'), ['lint', file, '--config', join(ROOT, 'redocly.yaml'), '--format', 'json']);
  const report = JSON.parse(text) as { problems: { ruleId: string; severity: string; location: { pointer: string }[] }[] };
  return report.problems.map((p) => ({
    tool: 'redocly',
    rule: p.ruleId,
    severity: p.severity === 'error' ? 'error' : 'warning',
    at: (p.location[0]?.pointer ?? '').replace(/^#\//, ''),
  }));
}

describe('the OpenAPI document under Spectral (OAS + OWASP) and Redocly', () => {
  it('has no error and no warning beyond the listed ones', { timeout: 120_000 }, async () => {
    const findings = [...(await spectral()), ...(await redocly())];
    expect(findings.filter((f) => !known(f))).toEqual([]);
    // No error at all: every answer declares the rate-limit headers it is sent with.
    expect(findings.filter((f) => f.severity === 'error')).toEqual([]);
    // Redocly finds nothing but the probes' lack of a 4xx answer; Spectral only the few warnings listed.
    expect(findings.filter((f) => f.tool === 'redocly').map((f) => [f.rule, pathOf(f.at)]).sort()).toEqual([
      ['operation-4xx-response', '/healthz'],
      ['operation-4xx-response', '/readyz'],
    ]);
    expect(findings.length).toBeLessThanOrEqual(3 + 2 * PUBLIC_ROUTES.length + PUBLIC_ROUTES.length + 1 + 3 * PROBE_PATHS.size);
    // Exactly the probes go without a 429, and they are the two the gateway serves uncounted.
    expect([...new Set(findings.filter((f) => f.rule === 'owasp:api4:2023-rate-limit-responses-429').map((f) => pathOf(f.at)))].sort()).toEqual(['/healthz', '/readyz']);
  });
});
