// Checks an OpenAPI 3.1 document against a running server: each operation is called with real
// values for its path parameters, and the answer's status must be one the document lists, with a
// body that validates against the documented schema (ajv) and the documented content type.
import assert from 'node:assert/strict';
import { Ajv2020 } from 'ajv/dist/2020.js';

export interface OpenApiDoc {
  readonly paths: Readonly<Record<string, Readonly<Record<string, Operation>>>>;
  readonly components?: unknown;
}

interface Operation {
  readonly responses: Readonly<Record<string, { readonly content?: Readonly<Record<string, { readonly schema?: object }>> }>>;
}

export interface Call {
  readonly method: string;
  readonly path: string;
  /** The status the server answered. */
  readonly status: number;
}

/** Every documented operation as method (upper case) and path template. */
export function operations(doc: OpenApiDoc): { method: string; path: string }[] {
  return Object.entries(doc.paths).flatMap(([path, item]) => Object.keys(item).map((method) => ({ method: method.toUpperCase(), path })));
}

/**
 * Calls every documented operation on `baseUrl`. `values` fills the path parameters by name;
 * `request` may add headers and a body per operation.
 */
export async function checkDocumented(
  doc: OpenApiDoc,
  baseUrl: string,
  values: Readonly<Record<string, string>>,
  request: (method: string, path: string) => RequestInit = () => ({}),
): Promise<Call[]> {
  const ajv = new Ajv2020({ strict: false, allErrors: true });
  // $refs point into the document's components; the schemas are validated against that root.
  ajv.addSchema({ $id: 'doc', components: doc.components ?? {} });
  const calls: Call[] = [];
  for (const { method, path } of operations(doc)) {
    const url = path.replace(/\{(\w+)\}/g, (_, name: string) => {
      const value = values[name];
      assert.notEqual(value, undefined, `a value for the path parameter ${name} of ${path}`);
      return encodeURIComponent(value);
    });
    const res = await fetch(`${baseUrl}${url}`, { method, ...request(method, path) });
    const body = await res.text();
    const where = `${method} ${url} answered ${res.status} ${body.slice(0, 200)}`;
    const documented = doc.paths[path][method.toLowerCase()].responses[String(res.status)];
    assert.notEqual(documented, undefined, `${where}: a status the document lists`);
    const [type, media] = Object.entries(documented.content ?? {})[0] ?? [];
    if (type !== undefined) {
      assert.equal(res.headers.get('content-type')?.split(';')[0], type, `${where}: the documented content type`);
      if (type === 'application/json' && media?.schema) {
        const schema = JSON.parse(JSON.stringify(media.schema).replaceAll('"#/components/', '"doc#/components/'));
        const valid = ajv.validate(schema, JSON.parse(body));
        assert.ok(valid, `${where}: the body fits the documented schema: ${ajv.errorsText(ajv.errors)}`);
      }
    }
    calls.push({ method, path, status: res.status });
  }
  return calls;
}
