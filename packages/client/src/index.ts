/** @cs/client: the typed clients every program of the repo uses to talk to csd. */
export * from './client.ts';
export * from './payments.ts';
export * from './requester.ts';
export * from './error-codes.ts';
export type * from './json.ts';
export type * from './rpc-methods.gen.ts';
export { RPC_METHOD_NAMES } from './rpc-methods.gen.ts';
export * from './rest.ts';
export * from './ws.ts';
export * from './http-routes.ts';
