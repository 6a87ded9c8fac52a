// @cs/miner/gguf: the generated models the tests, benches and cs-network run.
export { seededRandom, TINY_LLAMA, tinyLlamaGguf, type TinyLlamaShape } from './tiny-llama.ts';
export { LARGE_LLAMA, cachedModel } from './model-cache.ts';
