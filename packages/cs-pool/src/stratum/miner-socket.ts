/**
 * An accepted miner's socket made ready to read, in whichever process holds it (the pool's, or a
 * socket process's): accepted paused, so that nothing is read before its holder listens, and
 * wrapped in TLS here on a TLS port, so that the holder does the handshake and sees plaintext.
 */
import type { Socket } from 'node:net';
import { type SecureContext, TLSSocket, createSecureContext } from 'node:tls';

/** What a holder of TLS sockets needs: the certificate (-tlscert and -tlskey, or generated) and the session ticket keys. */
export interface TlsSettings {
  readonly cert: string;
  readonly key: string;
  /** 48 random bytes per start, the same in every process, so that a session resumes in whichever holds the new connection. */
  readonly ticketKeys: Uint8Array;
}

/** The TLS settings of every TLS port. */
export function tlsContext(tls: TlsSettings): SecureContext {
  return createSecureContext({ cert: tls.cert, key: tls.key, minVersion: 'TLSv1.2', ticketKeys: Buffer.from(tls.ticketKeys) });
}

/** The socket to read and write a miner through: TLS on top of `socket` when `tls` is given; text in. */
export function readyMinerSocket(socket: Socket, tls: SecureContext | null): Socket | TLSSocket {
  socket.setNoDelay(true);
  socket.setKeepAlive(true, 60_000);
  const s = tls ? new TLSSocket(socket, { isServer: true, secureContext: tls }) : socket;
  s.setEncoding('utf8');
  s.on('error', () => {});
  socket.resume();
  return s;
}
