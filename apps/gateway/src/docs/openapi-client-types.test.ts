// What a partner's generated client gets from the document: `openapi-typescript`, a generator
// partners use, turns /openapi.json into TypeScript types, and the webhook payloads must be among them
// (the `webhooks` section, docs/webhooks.md#payload-types), typed down to the fields a receiver
// uses, such as stock.level_changed's `version`. And the request bodies the guides send compile
// against its `paths`: fields with a default, and bodies that may be left out, are optional.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createCredentialCipher } from '@pits/persistence';
import openapiTS, { astToString } from 'openapi-typescript';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { partnerRoutes } from '../routes/partner-routes.js';
import { PUBLIC_ROUTES } from '../routes/public-routes.js';
import { partnerGuide } from './guides.js';
import { buildOpenApiDocument } from './openapi-document.js';

const EVENT_TYPES = ['inbound.status_changed', 'adjustment.status_changed', 'transfer.status_changed', 'reservation.status_changed', 'stock.level_changed', 'webhook.test'];

describe('a client generated with openapi-typescript', () => {
  it('types every webhook payload, and the stock level a receiver applies by version', { timeout: 60_000 }, async () => {
    const routes = partnerRoutes({ cipher: createCredentialCipher('t'.repeat(64)), urlPolicy: { allowPrivate: false }, resolveHost: () => Promise.resolve([]) });
    const document = buildOpenApiDocument(routes, PUBLIC_ROUTES, { version: 'types' });
    const types = astToString(await openapiTS(JSON.parse(JSON.stringify(document)) as Parameters<typeof openapiTS>[0]));

    const webhooks = /export interface webhooks \{([\s\S]*?)\n\}/.exec(types)?.[1];
    expect(webhooks, 'a webhooks interface').toBeDefined();
    for (const type of EVENT_TYPES) expect(webhooks, type).toContain(`"${type}"`);

    const level = /StockLevelChangedEvent: \{([\s\S]*?)\n {8}\};/.exec(types)?.[1];
    expect(level, 'the StockLevelChangedEvent schema').toBeDefined();
    expect(level).toMatch(/type: "stock\.level_changed";/);
    for (const field of ['version', 'good', 'reserved_for_orders', 'reserved_for_transfers', 'available']) expect(level, field).toMatch(new RegExp(`\\b${field}: number;`));
  });
});

/** A route's path in the document: `$RESERVATION_ID` and the like of a curl line become `{id}`. */
const documentPath = (curlPath: string) => curlPath.replace(/\$[A-Z_]+/g, '{id}');

/**
 * Every `curl -X <method> <origin><path> … -d '<json>'` of a guide chapter, as the method, the
 * document's path and the body it sends.
 */
function guideBodies(chapter: string): { method: string; path: string; body: unknown }[] {
  return [...chapter.replace(/\\\n\s*/g, ' ').matchAll(/curl -s -X (\w+) http:\/\/127\.0\.0\.1:4000(\S+)[^\n]*? -d '([^']*)'/g)].map((m) => ({
    method: m[1]!.toLowerCase(),
    path: documentPath(m[2]!),
    body: JSON.parse(m[3]!) as unknown,
  }));
}

describe('a client generated with openapi-typescript, as the README says', () => {
  it('compiles the request bodies of the holds and webhooks guides, with defaulted fields and bodies left out', { timeout: 120_000 }, async () => {
    const routes = partnerRoutes({ cipher: createCredentialCipher('t'.repeat(64)), urlPolicy: { allowPrivate: false }, resolveHost: () => Promise.resolve([]) });
    const guide = partnerGuide();
    const document = buildOpenApiDocument(routes, PUBLIC_ROUTES, { version: 'types', description: guide });
    const dir = mkdtempSync(join(tmpdir(), 'pits-client-'));
    try {
      writeFileSync(join(dir, 'pits.d.ts'), astToString(await openapiTS(JSON.parse(JSON.stringify(document)) as Parameters<typeof openapiTS>[0])));
      const chapter = (title: string) => guide.split(`\n## ${title}\n`)[1]!.split('\n## ')[0]!;
      const fromGuides = [...guideBodies(chapter('Holding stock for orders')), ...guideBodies(chapter('Webhooks'))];
      // The guides' own bodies: a hold without expires_in, a partial consume, a release with a reason, a subscription, a change of one.
      expect(fromGuides.map((b) => `${b.method} ${b.path}`)).toEqual([
        'post /api/partner/v1/reservations',
        'post /api/partner/v1/reservations/{id}/consume',
        'post /api/partner/v1/reservations/{id}/release',
        'post /api/partner/v1/webhooks',
        'patch /api/partner/v1/webhooks/{id}',
      ]);
      expect(fromGuides[0]!.body).not.toHaveProperty('expires_in');
      const source = `import type { paths } from './pits';

/** The JSON body of an operation, as a generated client takes it. */
type Body<P extends keyof paths, M extends keyof paths[P]> = paths[P][M] extends { requestBody?: { content: { 'application/json': infer B } } } ? B : never;
/** Whether a call may leave the body out: its operation's requestBody is optional. */
type MayLeaveOutBody<P extends keyof paths, M extends keyof paths[P]> = paths[P][M] extends { requestBody: unknown } ? false : true;

${fromGuides.map((b, i) => `export const guide${i}: Body<'${b.path}', '${b.method}'> = ${JSON.stringify(b.body)};`).join('\n')}

// What the guides say in words: consume with no items or no body at all, release without a reason, extend.
export const consumeAll: Body<'/api/partner/v1/reservations/{id}/consume', 'post'> = {};
export const consumeWithoutBody: MayLeaveOutBody<'/api/partner/v1/reservations/{id}/consume', 'post'> = true;
export const releaseWithoutReason: Body<'/api/partner/v1/reservations/{id}/release', 'post'> = {};
export const releaseWithoutBody: MayLeaveOutBody<'/api/partner/v1/reservations/{id}/release', 'post'> = true;
export const extend: Body<'/api/partner/v1/reservations/{id}/extend', 'post'> = { expires_in: 3600 };
export const holdById: Body<'/api/partner/v1/reservations', 'post'> = { location_id: 1, reference: 'ORDER-2', items: [{ product_id: 1, quantity: 1.5 }] };
export const pause: Body<'/api/partner/v1/webhooks/{id}', 'patch'> = { active: false };
export const receiveGood: Body<'/api/partner/v1/inbound/{id}/receive', 'post'> = { items: [{ item_id: '1', received_quantity: 2 }] };

// And what they say is required stays required: a check that would pass anything checks nothing.
// @ts-expect-error a hold needs its items
export const holdWithoutItems: Body<'/api/partner/v1/reservations', 'post'> = { location_id: 1, reference: 'ORDER-3' };
// @ts-expect-error extend needs expires_in
export const extendWithoutSeconds: Body<'/api/partner/v1/reservations/{id}/extend', 'post'> = {};
// @ts-expect-error a hold cannot be created without a body
export const holdWithoutBody: MayLeaveOutBody<'/api/partner/v1/reservations', 'post'> = true;
`;
      writeFileSync(join(dir, 'guide.ts'), source);
      const program = ts.createProgram([join(dir, 'guide.ts')], {
        strict: true,
        exactOptionalPropertyTypes: true,
        noEmit: true,
        target: ts.ScriptTarget.ES2022,
        module: ts.ModuleKind.ESNext,
        moduleResolution: ts.ModuleResolutionKind.Bundler,
        types: [],
      });
      const problems = ts.getPreEmitDiagnostics(program).map((d) => {
        const where = d.file && d.start !== undefined ? `${d.file.fileName.slice(dir.length + 1)}:${d.file.getLineAndCharacterOfPosition(d.start).line + 1}: ` : '';
        return where + ts.flattenDiagnosticMessageText(d.messageText, '\n');
      });
      expect(problems, source).toEqual([]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
