import { resolve } from 'node:path';
import type { CLI_OPTIONS } from '../config/cli-options.ts';
import { type Settings, splitHostPort } from '@cs/runtime/config';
import { readCookie } from '@cs/runtime/datadir';
import type { Endpoint } from './http.ts';

type CliSettings = Settings<typeof CLI_OPTIONS>;

/**
 * Where to send requests, in bitcoin-cli's order of preference for the port: -rpcport, then a
 * port inside -rpcconnect (host:port, [v6]:port), then the network's default. -rpcwallet picks
 * the wallet's path, its name URL-encoded as bitcoin-cli does.
 */
export function rpcEndpoint(settings: CliSettings): Endpoint & { readonly warning: string | null } {
  const { rpcconnect, rpcport, rpcwallet } = settings.values;
  // The option's own check already accepted the text, so it splits.
  const target = splitHostPort(rpcconnect) ?? { host: rpcconnect, port: null };
  const both = settings.isSet('rpcport') && target.port !== null;
  return {
    host: target.host,
    port: settings.isSet('rpcport') ? rpcport : (target.port ?? rpcport),
    path: rpcwallet === null ? '/' : `/wallet/${encodeURIComponent(rpcwallet)}`,
    warning: both ? `Warning: Port specified in both -rpcconnect and -rpcport. Using -rpcport ${rpcport}\n` : null,
  };
}

/**
 * "user:password" from -rpcpassword (or -stdinrpcpass) when one is given, else from the selected
 * network's cookie file; null when neither is available.
 */
export function credentialsReader(settings: CliSettings, stdinPassword: string | undefined): () => Promise<string | null> {
  const password = stdinPassword ?? settings.values.rpcpassword ?? '';
  if (password !== '') {
    const user = settings.values.rpcuser ?? '';
    return () => Promise.resolve(`${user}:${password}`);
  }
  const cookieFile = settings.values.rpccookiefile;
  if (cookieFile === null) return () => Promise.resolve(null);
  const path = resolve(settings.networkDir, cookieFile);
  return async () => {
    const cookie = await readCookie(path);
    return cookie && `${cookie.user}:${cookie.password}`;
  };
}
