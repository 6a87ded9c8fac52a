// The generated API files and their contents, for scripts/gen-api.ts (writes them) and
// test/api-descriptions.test.ts (checks the checked-in copies).
import { fileURLToPath } from 'node:url';
import { parseResult } from '../packages/client/src/gen/result-schema.ts';
import { rpcMethodsJson, rpcMethodsTypeScript } from '../packages/client/src/gen/rpc-description.ts';
import { OPENAPI as BRIDGE_OPENAPI } from '../packages/cs-bridge/src/http/openapi.ts';
import { POOL_OPENAPI } from '../packages/cs-pool/src/api/openapi.ts';
import { describeNodeMethods } from '../packages/csd/src/node/describe-methods.ts';
import { restOpenApi } from '../packages/csd/src/rest/openapi.ts';

const at = (path: string) => fileURLToPath(new URL(path, import.meta.url));

export const RPC_METHODS_JSON = at('../docs/api/rpc-methods.json');
export const RPC_METHODS_TS = at('../packages/client/src/rpc-methods.gen.ts');
export const REST_OPENAPI = at('../docs/api/csd-rest.openapi.json');
export const POOL_OPENAPI_JSON = at('../docs/api/pool.openapi.json');
export const BRIDGE_OPENAPI_JSON = at('../docs/api/bridge.openapi.json');

const jsonText = (value: unknown) => `${JSON.stringify(value, null, 2)}\n`;

export function generatedApiFiles(): [path: string, text: string][] {
  const methods = describeNodeMethods();
  const result = (name: string, alternative?: number): object => {
    const method = methods.find((m) => m.name === name);
    if (method === undefined) throw new Error(`the REST description names an unknown RPC method ${name}`);
    const { schema } = parseResult(method.result);
    if (alternative === undefined) return schema;
    if (!('oneOf' in schema)) throw new Error(`${name}'s result has no alternatives`);
    return schema.oneOf[alternative];
  };
  return [
    [RPC_METHODS_JSON, rpcMethodsJson(methods)],
    [RPC_METHODS_TS, rpcMethodsTypeScript(methods)],
    [REST_OPENAPI, jsonText(restOpenApi(result))],
    [POOL_OPENAPI_JSON, jsonText(POOL_OPENAPI)],
    [BRIDGE_OPENAPI_JSON, jsonText(BRIDGE_OPENAPI)],
  ];
}
