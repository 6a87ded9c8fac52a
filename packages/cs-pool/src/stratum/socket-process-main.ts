/**
 * A stratum socket process (socket-processes.ts): holds the miners' sockets the pool's process
 * hands it, passes on what they send, and writes what the pool says, job broadcasts to its whole
 * audience in one loop. It decides nothing; it exits with the pool's process (its IPC channel).
 */
import type { Socket } from 'node:net';
import type { SecureContext, TLSSocket } from 'node:tls';
import { DenseList } from './dense-list.ts';
import { readyMinerSocket, tlsContext } from './miner-socket.ts';
import type { FromSocketProcess, ToSocketProcess } from './socket-processes.ts';

const sockets = new Map<number, Socket | TLSSocket>();
/** The sockets a job broadcast writes to, as in the pool's own JobAudience. */
const audience = new DenseList<number, Socket | TLSSocket>();
let tls: SecureContext | null = null;

const send = (m: FromSocketProcess) => {
  if (process.connected) process.send!(m);
};

function hold(i: number, socket: Socket | TLSSocket): void {
  sockets.set(i, socket);
  send({ t: 'h', i });
  socket.on('data', (d: string) => send({ t: 'd', i, d }));
  // No more jobs; the pool's process ends this side once it has answered what came before.
  socket.on('end', () => {
    audience.delete(i);
    send({ t: 'end', i });
  });
  socket.on('close', () => {
    audience.delete(i);
    sockets.delete(i);
    send({ t: 'close', i });
  });
}

process.on('message', (m: ToSocketProcess, handle?: Socket) => {
  switch (m.t) {
    case 'init':
      if (m.tls) tls = tlsContext(m.tls);
      return;
    case 'c':
      if (!handle || (m.tls && !tls)) {
        handle?.destroy();
        send({ t: 'close', i: m.i });
      } else {
        // Half-open, as a socket of the pool's own is until it has answered: that answer takes a trip here.
        handle.allowHalfOpen = true;
        hold(m.i, readyMinerSocket(handle, m.tls ? tls : null));
      }
      return;
    case 'b': {
      const line = Buffer.from(m.d);
      for (const s of audience.values) s.write(line);
      return;
    }
    case 'quit':
      for (const s of sockets.values()) s.destroy();
      process.disconnect();
      return;
  }
  const s = sockets.get(m.i);
  if (!s) {
    // Closed here already (its 'close' is on the way), or never held: the pool's process learns it either way.
    send({ t: 'close', i: m.i });
    return;
  }
  switch (m.t) {
    case 'w':
      s.write(m.d);
      return;
    case 'e':
      audience.delete(m.i);
      s.end(m.d);
      // A paused socket would never read the miner's end of the connection, so never close.
      s.resume();
      return;
    case 'x':
      s.destroy();
      return;
    case 'pause':
      s.pause();
      return;
    case 'resume':
      s.resume();
      return;
    case 'join':
      audience.add(m.i, s);
      return;
    case 'leave':
      audience.delete(m.i);
      return;
  }
});
// The pool's process is gone (it exited, or was killed): so are its miners' sessions.
process.on('disconnect', () => process.exit(0));
// A send while the pool's process is going away fails; its 'disconnect' follows.
process.on('error', () => {});
