// The generated API files and their contents, for scripts/gen-api.ts (writes them) and
// test/api-descriptions.test.ts (checks the checked-in copies).
import { fileURLToPath } from 'node:url';
import { rpcMethodsJson, rpcMethodsTypeScript } from '../packages/client/src/gen/rpc-description.ts';
import { describeNodeMethods } from '../packages/csd/src/node/describe-methods.ts';

export const RPC_METHODS_JSON = fileURLToPath(new URL('../docs/api/rpc-methods.json', import.meta.url));
export const RPC_METHODS_TS = fileURLToPath(new URL('../packages/client/src/rpc-methods.gen.ts', import.meta.url));

export function generatedApiFiles(): [path: string, text: string][] {
  const methods = describeNodeMethods();
  return [
    [RPC_METHODS_JSON, rpcMethodsJson(methods)],
    [RPC_METHODS_TS, rpcMethodsTypeScript(methods)],
  ];
}
