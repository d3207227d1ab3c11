// Test support: what is missing or wrong in the examples of an OpenAPI document, as a list of
// sentences (empty when every operation is fully illustrated). Each example is validated by
// JSON Schema 2020-12 (Ajv) against the schema the document publishes beside it; error examples
// must answer with the code and status they are filed under.
import { ERROR_KINDS, type ErrorKind } from '@pits/domain';
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import { ERROR_STATUS } from '../http/index.js';

type Json = Record<string, unknown>;
type Media = { schema?: Json; example?: unknown; examples?: Record<string, { value?: unknown }> };
type Operation = {
  operationId?: string;
  parameters?: { name: string; in: string; schema?: Json; example?: unknown }[];
  requestBody?: { content?: Record<string, Media> };
  responses?: Record<string, { description?: string; content?: Record<string, Media> }>;
};

// ajv-formats is CommonJS: its default export arrives wrapped under ESM interop.
const addFormats = ((addFormatsModule as unknown as { default?: typeof addFormatsModule }).default ?? addFormatsModule) as unknown as (ajv: Ajv2020) => Ajv2020;

/** Compiles each published schema once, resolving `#/components/...` against the document. */
function schemaValidator(document: Json): (schema: Json, value: unknown) => string | undefined {
  const ajv = addFormats(new Ajv2020({ strict: false, allErrors: true }));
  const compiled = new Map<string, ValidateFunction>();
  return (schema, value) => {
    const key = JSON.stringify(schema);
    let validate = compiled.get(key);
    if (validate === undefined) {
      validate = ajv.compile({ ...schema, components: document.components });
      compiled.set(key, validate);
    }
    if (validate(value)) return undefined;
    return ajv.errorsText(validate.errors);
  };
}

/** The error codes a response's description names ("error.code is A or B."). */
function documentedCodes(description: string | undefined): string[] {
  const match = /error\.code is ([`A-Z_ ]+(?: or [`A-Z_]+)*)\./.exec(description ?? '');
  return match ? match[1]!.split(' or ').map((code) => code.replace(/`/g, '').trim()) : [];
}

/**
 * Every problem with the examples of `document`'s operations whose answers are JSON: a request
 * body, query parameter, success or error response without an example, or with one that its
 * schema refuses.
 *
 * @example expect(referenceExampleProblems(document)).toEqual([]);
 */
export function referenceExampleProblems(document: Json): string[] {
  const problems: string[] = [];
  const check = schemaValidator(document);
  const paths = (document.paths ?? {}) as Record<string, Record<string, Operation>>;
  for (const [path, methods] of Object.entries(paths)) {
    for (const [method, operation] of Object.entries(methods)) {
      const where = `${method.toUpperCase()} ${path}`;
      const body = operation.requestBody?.content?.['application/json'];
      if (body !== undefined) {
        if (body.example === undefined) problems.push(`${where}: the request body has no example`);
        else if (body.schema) {
          const refused = check(body.schema, body.example);
          if (refused) problems.push(`${where}: the request body example does not match its schema: ${refused}`);
        }
      }
      for (const parameter of operation.parameters ?? []) {
        if (parameter.in !== 'query') continue;
        if (parameter.example === undefined) problems.push(`${where}: query parameter ${parameter.name} has no example`);
        else if (parameter.schema) {
          const refused = check(parameter.schema, parameter.example);
          if (refused) problems.push(`${where}: the example of query parameter ${parameter.name} does not match its schema: ${refused}`);
        }
      }
      for (const [status, response] of Object.entries(operation.responses ?? {})) {
        const media = response.content?.['application/json'];
        if (media === undefined) continue; // HTML and the renderer's script: nothing to illustrate
        const examples: [string, unknown][] = [
          ...(media.example === undefined ? [] : [['example', media.example] as [string, unknown]]),
          ...Object.entries(media.examples ?? {}).map(([name, e]) => [name, e.value] as [string, unknown]),
        ];
        if (examples.length === 0) problems.push(`${where}: response ${status} has no example`);
        for (const [name, value] of examples) {
          const refused = media.schema ? check(media.schema, value) : undefined;
          if (refused) problems.push(`${where}: example ${name} of response ${status} does not match its schema: ${refused}`);
        }
        if (Number(status) < 400) continue;
        // An error response: one example per code it names, each answering with that code and status.
        const codes = documentedCodes(response.description);
        const named = Object.keys(media.examples ?? {});
        if (codes.length > 0 && JSON.stringify([...named].sort()) !== JSON.stringify([...codes].sort())) {
          problems.push(`${where}: response ${status} names codes ${codes.join(', ')} but has examples ${named.join(', ') || 'none'}`);
        }
        for (const [name, value] of examples) {
          const code = (value as { error?: { code?: string } } | undefined)?.error?.code;
          if (code === undefined) continue;
          if (name !== code) problems.push(`${where}: example ${name} of response ${status} answers ${code}`);
          if ((ERROR_KINDS as readonly string[]).includes(code) && String(ERROR_STATUS[code as ErrorKind].http) !== status) {
            problems.push(`${where}: ${code} is HTTP ${ERROR_STATUS[code as ErrorKind].http}, not ${status}`);
          }
        }
      }
    }
  }
  return problems;
}
