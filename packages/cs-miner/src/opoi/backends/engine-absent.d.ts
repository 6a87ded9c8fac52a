// What the compiler sees of node-llama-cpp where the optional dependency is not installed
// (`npm ci -w packages/cs-miner --omit=optional`): the build succeeds, and loadBinding() in
// llama.ts reports the missing engine at run time. With the package installed, tsconfig.json's
// paths resolve its real declarations first, so the embedded engine is checked against them.
export type Token = number;
// biome-ignore lint/suspicious/noExplicitAny: without the package there is no API to name; the full install checks llama.ts against the real one
export declare const getLlama: any;
// biome-ignore lint/suspicious/noExplicitAny: as above
export declare const LlamaLogLevel: any;
// biome-ignore lint/suspicious/noExplicitAny: as above
export type ControlledEvaluateInputItem = any;
