/**
 * @cs/bridge/setup: what a program that sets up a bridge for someone (cs-network) may use: the
 * bridge's variable table and its .env file, and the node checks the wizard makes.
 */
export { readEnvFile, VARIABLES } from '../config/env.ts';
export { readStake, spendableUtxos } from '../node/node-check.ts';
export { newApiKey, writeEnvFile } from './env-file.ts';
