// bench/pool.ts's idle miners, in a process of their own so that their work is not in the pool's
// figures and the bench's other work is not in theirs. Each miner is a bare socket: it subscribes
// and authorizes with pre-encoded lines, and afterwards only notes when a chunk carrying a
// mining.notify arrives (process.hrtime, CLOCK_MONOTONIC, the clock the parent reads hashblock
// with). Nothing is parsed after login, so one miner's handling does not delay the next one's receipt.
//   parent -> { connect: port, login: string, count } | 'arm' | 'close'
//   child  -> 'ready' (every miner has its first job) | 'armed' | { times: ns[] } (each miner's first notify after 'arm')
import { connect, type Socket } from 'node:net';

const NOTIFY = 'mining.notify';
const sockets: Socket[] = [];
let times: number[] = [];
let left = 0;

const send = (message: unknown) => process.send!(message);

function open(port: number, login: string, count: number): void {
  left = count;
  for (let i = 0; i < count; i++) {
    const socket = connect(port, '127.0.0.1');
    socket.setNoDelay(true);
    socket.on('error', (e) => {
      throw e;
    });
    let waiting = true;
    socket.on('data', (chunk: Buffer) => {
      if (times.length > 0) {
        if (times[i] === 0 && chunk.includes(NOTIFY)) {
          times[i] = Number(process.hrtime.bigint());
          if (--left === 0) send({ times });
        }
      } else if (waiting && chunk.includes(NOTIFY)) {
        waiting = false;
        if (--left === 0) send('ready');
      }
    });
    socket.write(
      `{"id":1,"method":"mining.subscribe","params":["bench/1.0",null]}\n{"id":2,"method":"mining.authorize","params":["${login}${i}","x"]}\n`,
    );
    sockets.push(socket);
  }
}

process.on('message', (m: { connect: number; login: string; count: number } | 'arm' | 'close') => {
  if (m === 'arm') {
    times = new Array<number>(sockets.length).fill(0);
    left = sockets.length;
    send('armed');
  } else if (m === 'close') {
    for (const s of sockets) s.destroy();
    process.disconnect();
  } else open(m.connect, m.login, m.count);
});
