// node-llama-cpp's types the embedded engine and its audit share, named once (the package is an
// optional dependency, imported at run time only by llama.ts).
type NodeLlamaCpp = typeof import('node-llama-cpp');
export type Token = import('node-llama-cpp').Token;
export type LlamaModel = Awaited<ReturnType<Awaited<ReturnType<NodeLlamaCpp['getLlama']>>['loadModel']>>;
export type LlamaContext = Awaited<ReturnType<LlamaModel['createContext']>>;
export type LlamaSequence = ReturnType<LlamaContext['getSequence']>;
