// What a partner's generated client gets from the document: `openapi-typescript`, a generator
// partners use, turns /openapi.json into TypeScript types, and the webhook payloads must be among them
// (the `webhooks` section, docs/webhooks.md#payload-types), typed down to the fields a receiver
// uses, such as stock.level_changed's `version`.
import { createCredentialCipher } from '@pits/persistence';
import openapiTS, { astToString } from 'openapi-typescript';
import { describe, expect, it } from 'vitest';
import { partnerRoutes } from '../routes/partner-routes.js';
import { PUBLIC_ROUTES } from '../routes/public-routes.js';
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
