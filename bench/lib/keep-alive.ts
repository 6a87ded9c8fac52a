// The benches' HTTP client: requests pipelined one at a time over keep-alive sockets, nothing
// parsed beyond the status line and Content-Length, so the client costs as little as it can.
import { connect } from 'node:net';

/**
 * `total` requests over `connections` keep-alive sockets, one outstanding per socket; resolves
 * with the elapsed ms. Bodies are counted, not collected: only the (small) head is buffered.
 */
export function driveKeepAlive(port: number, request: Uint8Array, total: number, connections: number): Promise<number> {
  return new Promise((resolve, reject) => {
    let sent = 0;
    let done = 0;
    const started = performance.now();
    const sockets = Array.from({ length: connections }, () => connect(port, '127.0.0.1'));
    const finish = (error?: Error) => {
      for (const s of sockets) s.destroy();
      if (error) reject(error);
      else resolve(performance.now() - started);
    };
    const send = (socket: (typeof sockets)[number]) => {
      if (sent < total) {
        sent++;
        socket.write(request);
      }
    };
    for (const socket of sockets) {
      socket.setNoDelay(true);
      let head = '';
      let bodyLeft = -1;
      socket.on('error', finish);
      socket.on('data', (chunk: Buffer) => {
        let offset = 0;
        while (offset < chunk.length) {
          if (bodyLeft < 0) {
            // Reading a head: it is small, so appending text is cheap.
            const text = chunk.toString('latin1', offset);
            const end = (head + text).indexOf('\r\n\r\n');
            if (end < 0) {
              head += text;
              return;
            }
            const full = (head + text).slice(0, end);
            offset += end + 4 - head.length;
            head = '';
            const length = Number(/\r\ncontent-length: *(\d+)/i.exec(full)?.[1] ?? NaN);
            if (!full.startsWith('HTTP/1.1 200') || !Number.isFinite(length))
              return finish(new Error(`unexpected response: ${full.split('\r\n')[0]}`));
            bodyLeft = length;
          }
          const take = Math.min(bodyLeft, chunk.length - offset);
          bodyLeft -= take;
          offset += take;
          if (bodyLeft === 0) {
            bodyLeft = -1;
            if (++done === total) return finish();
            send(socket);
          }
        }
      });
      send(socket);
    }
  });
}
