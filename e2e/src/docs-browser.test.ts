// /docs in a real browser (Debian's chromium, driven by playwright-core): the reference renders
// offline from what the gateway serves, its search finds an operation, and the operation shows
// the response example of its route spec, and a webhook of the document's `webhooks` section renders
// with its signature headers. Screenshots are left in reports/docs/ for a person.
// On a gateway serving a seeded sandbox (DOCS_SANDBOX_TENANT_ID, as npm start runs it), Test Request
// of a tenant route, with only the key typed in, answers 200, and Getting started shows the port
// the gateway listens on.
// Under CI=true a missing chromium is a failure (.ci/run installs it); elsewhere the test is skipped.
import { existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { createCredentialCipher, createDatabase, parseDatabaseUrl, seedDemoData } from '@pits/persistence';
import { type Browser, chromium } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REPO_ROOT } from './harness/child-service.js';
import { showOutputOnFailure } from './harness/failure-output.js';
import { type ServiceStack, startStack } from './harness/service-stack.js';

const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const available = existsSync(CHROMIUM);
const inCi = process.env.CI === 'true';
if (!available && inCi) {
  throw new Error(`docs browser test: no chromium at ${CHROMIUM}; install it (apt-get install -y chromium, as .ci/run does) or set CHROMIUM_PATH`);
}
if (!available) console.warn(`[skip] docs browser test skipped: no chromium at ${CHROMIUM} (apt-get install -y chromium, or set CHROMIUM_PATH)`);

const SCREENSHOT = join(REPO_ROOT, 'reports', 'docs', 'docs-reference.png');
const WEBHOOK_SCREENSHOT = join(REPO_ROOT, 'reports', 'docs', 'docs-webhook.png');
/** The operation searched for, by its summary, and the route whose example it must show. */
const SUMMARY = 'Approve a pending transfer';
const OPERATION_ID = 'transfers.approve';
/** A webhook of the document's `webhooks` section, by its summary. */
const WEBHOOK_SUMMARY = 'The stock of a product at a location changed';

type Document = { paths: Record<string, Record<string, { operationId: string; responses: Record<string, { content?: Record<string, { example?: { data?: { transfer?: { approved_at?: string } } } }> }> }>> };

describe.skipIf(!available)('/docs in a browser', () => {
  let stack: ServiceStack | undefined;
  let browser: Browser | undefined;
  beforeAll(async () => {
    stack = await startStack('sqlite');
    browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: ['--no-sandbox'], timeout: 30_000 });
  });
  afterAll(async () => {
    await browser?.close();
    await stack?.stop();
  });
  showOutputOnFailure(() => [stack?.gateway]);

  it('renders offline, finds an operation by search and shows its response example', async () => {
    const origin = new URL(stack!.gateway.url).origin;
    // The value to look for comes from the served document: the approval time in the route's responseExample.
    const document = (await (await fetch(`${origin}/openapi.json`)).json()) as Document;
    const operation = Object.values(document.paths).flatMap((methods) => Object.values(methods)).find((o) => o.operationId === OPERATION_ID)!;
    const approvedAt = operation.responses['200']!.content!['application/json']!.example!.data!.transfer!.approved_at!;
    expect(approvedAt).toMatch(/^\d{4}-\d{2}-\d{2}T/);

    const context = await browser!.newContext({ viewport: { width: 1400, height: 900 } });
    const elsewhere: string[] = [];
    let local = 0;
    await context.route('**/*', async (route) => {
      const url = new URL(route.request().url());
      if (url.hostname === '127.0.0.1' || url.protocol === 'data:' || url.protocol === 'blob:') {
        local += 1;
        return route.continue();
      }
      elsewhere.push(url.href);
      return route.abort('blockedbyclient');
    });
    const page = await context.newPage();
    page.setDefaultTimeout(20_000);
    await page.goto(`${origin}/docs`, { waitUntil: 'load' });

    await page.getByRole('search').click();
    await page.getByRole('combobox', { name: 'Enter search query' }).fill(SUMMARY);
    const result = page.getByRole('option').filter({ hasText: SUMMARY }).first();
    await result.click();
    await expect.poll(() => page.url()).toContain('/approve');

    const example = page.getByText(`"${approvedAt}"`).first();
    await example.waitFor({ state: 'visible' });
    await example.scrollIntoViewIfNeeded();
    mkdirSync(join(REPO_ROOT, 'reports', 'docs'), { recursive: true });
    await page.screenshot({ path: SCREENSHOT });
    console.log(`docs browser test: screenshot of the reference at ${SCREENSHOT}`);

    // The webhooks section renders too: search finds an event by its summary, and it shows its signature header.
    await page.getByRole('search').click();
    await page.getByRole('combobox', { name: 'Enter search query' }).fill(WEBHOOK_SUMMARY);
    await page.getByRole('option').filter({ hasText: WEBHOOK_SUMMARY }).first().click();
    await expect.poll(() => page.url()).toContain('#tag/webhooks/');
    await page.getByText('X-Webhook-Signature', { exact: true }).first().waitFor({ state: 'visible' });
    await page.screenshot({ path: WEBHOOK_SCREENSHOT });
    await context.close();

    // The filter saw the page's own requests (page, renderer, document), so an empty list means none went elsewhere.
    expect(local).toBeGreaterThanOrEqual(3);
    expect(elsewhere, 'requests the page tried to make to anywhere but this server').toEqual([]);
  });

  it('sends Test Request of a tenant route with the sandbox tenant pre-filled: 200 once the key is typed in; Getting started shows this port', async () => {
    const database = createDatabase(parseDatabaseUrl(stack!.database.url));
    const demo = await seedDemoData(database, createCredentialCipher(stack!.credentialsKey), new Date());
    await database.destroy();
    const sandbox = await stack!.startGateway({ env: { DOCS_SANDBOX_TENANT_ID: demo.tenantId } });
    const origin = new URL(sandbox.url).origin;
    const page = await browser!.newPage({ viewport: { width: 1400, height: 900 } });
    page.setDefaultTimeout(20_000);
    try {
      await page.goto(`${origin}/docs#tag/tenants/GET/api/partner/v1/tenants/locations`, { waitUntil: 'load' });
      await expect.poll(() => page.getByText(`curl -s ${origin}/api/partner/v1/tenants -H`).count(), { timeout: 20_000 }).toBeGreaterThan(0);
      await page.getByRole('button', { name: 'Test Request (get /api/partner/v1/tenants/locations)' }).click();
      const client = page.getByRole('dialog');
      await client.getByText(demo.tenantId).first().waitFor({ state: 'visible' });
      // What a reader does: the key under Authentication, nothing else edited, then Send.
      // Scalar's value field of the apiKey scheme (its placeholder is the renderer's own sample value).
      await client.getByPlaceholder('QUxMIFlPVVIgQkFTRSBBUkUgQkVMT05HIFRPIFVT').first().fill(demo.apiKey);
      const answered = page.waitForResponse((response) => new URL(response.url()).pathname === '/api/partner/v1/tenants/locations');
      await client.getByRole('button', { name: /^Send\b/ }).first().click();
      const response = await answered;
      expect(response.request().headers()['x-tenant-id']).toBe(demo.tenantId);
      expect(response.status(), await response.text()).toBe(200);
    } finally {
      await page.close();
    }
  });
});
