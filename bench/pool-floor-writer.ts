// bench/pool.ts's floor for (b), in a process of its own as the pool is: a bare node:net server
// that writes one given line to each of its connections, nothing else in the process. It writes
// the line once at accept (the receivers, bench/pool-miners.ts, wait for it), then once per 'write'.
//   parent -> { line, count } | 'write' | 'close'
//   child  -> { port } | { started: ns } (process.hrtime, CLOCK_MONOTONIC, read just before the loop)
import { createServer, type Socket } from 'node:net';

const sockets: Socket[] = [];
let line = Buffer.alloc(0);

const server = createServer((s) => {
  sockets.push(s);
  s.setNoDelay(true);
  s.resume();
  s.on('error', () => {});
  s.write(line);
});

process.on('message', (m: { line: string } | 'write' | 'close') => {
  if (m === 'write') {
    const cpu = process.cpuUsage();
    const started = Number(process.hrtime.bigint());
    for (const s of sockets) s.write(line);
    const loopMs = (Number(process.hrtime.bigint()) - started) / 1e6;
    const used = process.cpuUsage(cpu);
    process.send!({ started, loopMs, cpuMs: (used.user + used.system) / 1000 });
  } else if (m === 'close') {
    for (const s of sockets) s.destroy();
    server.close();
    process.disconnect();
  } else {
    line = Buffer.from(m.line);
    server.listen(0, '127.0.0.1', () => process.send!({ port: (server.address() as { port: number }).port }));
  }
});
