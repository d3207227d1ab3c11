// GET /docs: a readable reference rendered on the server from the OpenAPI document. Plain HTML
// and CSS, no script and nothing fetched from elsewhere, so it works offline.

type Json = Record<string, unknown>;

const escape = (text: unknown) =>
  String(text ?? '').replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);

function schemaLink(schema: unknown): string {
  const ref = (schema as Json | undefined)?.$ref;
  if (typeof ref === 'string') {
    const name = ref.split('/').pop()!;
    return `<a href="#schema-${escape(name)}">${escape(name)}</a>`;
  }
  return `<code>${escape(JSON.stringify(schema))}</code>`;
}

export interface DocsSection {
  id: string;
  title: string;
  html: string;
}

/**
 * Renders the document as one HTML page. `sections` are extra prose chapters (for example the
 * webhook signature guide) appended after the operations.
 */
export function renderDocsPage(document: Json, sections: readonly DocsSection[] = []): string {
  const info = document.info as Json;
  const paths = document.paths as Record<string, Record<string, Json>>;
  const schemas = ((document.components as Json).schemas ?? {}) as Record<string, Json>;
  const operations: string[] = [];
  const toc: string[] = [];
  for (const [path, methods] of Object.entries(paths)) {
    for (const [method, op] of Object.entries(methods)) {
      const id = escape(op.operationId);
      toc.push(`<li><a href="#op-${id}"><span class="m ${escape(method)}">${escape(method.toUpperCase())}</span> ${escape(path)}</a></li>`);
      const params = ((op.parameters ?? []) as Json[])
        .map((p) => `<tr><td><code>${escape(p.name)}</code></td><td>${escape(p.in)}</td><td>${p.required ? 'yes' : 'no'}</td><td>${schemaLink(p.schema)}</td><td>${escape(p.description)}</td></tr>`)
        .join('');
      const body = op.requestBody as Json | undefined;
      const bodyContent = (body?.content as Record<string, Json> | undefined)?.['application/json'];
      const responses = Object.entries((op.responses ?? {}) as Record<string, Json>)
        .map(([status, r]) => {
          const content = r.content as Record<string, Json> | undefined;
          const schema = content && Object.values(content)[0]?.schema;
          return `<tr><td>${escape(status)}</td><td>${escape(r.description)}</td><td>${schema ? schemaLink(schema) : ''}</td></tr>`;
        })
        .join('');
      operations.push(`<section id="op-${id}">
<h3><span class="m ${escape(method)}">${escape(method.toUpperCase())}</span> <code>${escape(path)}</code></h3>
<p>${escape(op.summary)}${op.description ? ` &mdash; ${escape(op.description)}` : ''}</p>
${params ? `<table><tr><th>parameter</th><th>in</th><th>required</th><th>schema</th><th></th></tr>${params}</table>` : ''}
${bodyContent ? `<p><b>Body</b>: ${schemaLink(bodyContent.schema)}</p>${bodyContent.example ? `<pre>${escape(JSON.stringify(bodyContent.example, null, 2))}</pre>` : ''}` : ''}
<table><tr><th>status</th><th>meaning</th><th>body</th></tr>${responses}</table>
</section>`);
    }
  }
  const schemaSections = Object.entries(schemas)
    .map(([name, schema]) => `<section id="schema-${escape(name)}"><h3>${escape(name)}</h3><p>${escape(schema.description)}</p><pre>${escape(JSON.stringify(schema, null, 2))}</pre></section>`)
    .join('\n');
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>${escape(info.title)} – API reference</title>
<style>
body{font:15px/1.5 system-ui,sans-serif;max-width:72rem;margin:2rem auto;padding:0 1rem;color:#1d232a}
code,pre{font-family:ui-monospace,monospace;font-size:13px}pre{background:#f4f6f8;padding:.75rem;overflow:auto}
table{border-collapse:collapse;margin:.5rem 0}td,th{border:1px solid #d8dde3;padding:.25rem .5rem;text-align:left;vertical-align:top}
.m{font-weight:600;padding:0 .35rem;border-radius:3px;color:#fff;background:#555}.get{background:#2f7d32}.post{background:#1565c0}.patch{background:#a15c00}.delete{background:#b3261e}
section{border-top:1px solid #e3e7eb;padding-top:.5rem}
</style></head><body>
<h1>${escape(info.title)}</h1><p>Version ${escape(info.version)}. ${escape(info.description)}</p>
<p>Machine-readable: <a href="/openapi.json">/openapi.json</a> (OpenAPI 3.1).</p>
<h2>Operations</h2><ul>${toc.join('')}</ul>
${sections.map((s) => `<li><a href="#${escape(s.id)}">${escape(s.title)}</a></li>`).join('')}
${operations.join('\n')}
${sections.map((s) => `<section id="${escape(s.id)}"><h2>${escape(s.title)}</h2>${s.html}</section>`).join('\n')}
<h2>Schemas</h2>
${schemaSections}
</body></html>`;
}
