/**
 * @cs/stratum: ZIP 301 stratum shared by cs-pool, cs-bridge and cs-miner. The codec (JSON lines,
 * error codes), method parameters, jobs and headers from getblocktemplate, share validation, and
 * exact BigInt target and difficulty math against the network's powLimit.
 */
export * from './codec.ts';
export * from './methods.ts';
export * from './job.ts';
export * from './share.ts';
export * from './target.ts';
export * from './miner.ts';
export * from './opoi.ts';
export * from './opoi-manifest.ts';
export * from './opoi-audit.ts';
