// GET /docs: the API reference, rendered in the browser by Scalar's standalone bundle from the
// @scalar/api-reference package, served by the gateway itself (GET /docs/scalar.js) together with
// /openapi.json: nothing is fetched from anywhere else, so it works offline and behind a firewall.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';

/** Where the page loads the renderer from. */
export const SCALAR_BUNDLE_PATH = '/docs/scalar.js';

/** The standalone renderer as shipped in the npm package (read once, on first use). */
export function readScalarBundle(): Buffer {
  return readFileSync(createRequire(import.meta.url).resolve('@scalar/api-reference/browser/standalone.js'));
}

/**
 * Scalar's settings: its own fonts (fetched from its CDN by default), telemetry and the hosted
 * request proxy stay off; requests made with "Test Request" go straight to this server.
 */
const SCALAR_CONFIGURATION = {
  url: '/openapi.json',
  withDefaultFonts: false,
  telemetry: false,
  hideDownloadButton: false,
  defaultOpenAllTags: false,
  showDeveloperTools: 'never',
  agent: { disabled: true },
  metaData: { title: 'Partner Inventory and Tenant Service – API reference' },
};

/** The page: an element Scalar mounts on, its settings, and the bundle. */
export function renderDocsPage(): string {
  const configuration = JSON.stringify(SCALAR_CONFIGURATION).replace(/</g, '\\u003c');
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Partner Inventory and Tenant Service – API reference</title>
<link rel="icon" href="data:,">
<style>body{margin:0;font-family:system-ui,-apple-system,"Segoe UI",sans-serif}</style>
</head>
<body>
<script id="api-reference" data-url="/openapi.json" data-configuration='${configuration.replace(/'/g, '&#39;')}'></script>
<noscript>This reference needs JavaScript. The machine-readable contract is at <a href="/openapi.json">/openapi.json</a>.</noscript>
<script src="${SCALAR_BUNDLE_PATH}"></script>
</body>
</html>`;
}
