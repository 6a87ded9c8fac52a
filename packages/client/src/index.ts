/** @cs/client: the typed clients every program of the repo uses to talk to csd. */
export * from './client.ts';
export * from './payments.ts';
