// The node's peers (getpeerinfo) and network figures, refreshed every few seconds.
import type { Ctx } from '../api.ts';
import { facts, h, section, table, time } from '../dom.ts';

interface Peer {
  id: number;
  addr: string;
  inbound: boolean;
  subver: string;
  startingheight: number;
  synced_blocks: number;
  bytessent: number;
  bytesrecv: number;
  conntime: number;
  pingtime?: number;
}

export async function peersPage(ctx: Ctx, view: HTMLElement): Promise<void> {
  const draw = async () => {
    const [peers, net] = await Promise.all([
      ctx.rpc<Peer[]>('getpeerinfo'),
      ctx.rpc<{ subversion: string; protocolversion: number; connections: number; connections_in: number; connections_out: number }>(
        'getnetworkinfo',
      ),
    ]);
    view.replaceChildren(
      section(
        'Network',
        facts([
          ['node', net.subversion],
          ['protocol', net.protocolversion],
          ['connections', `${net.connections} (${net.connections_in} in, ${net.connections_out} out)`],
        ]),
      ),
      section(
        'Peers',
        peers.length === 0
          ? h('p', {}, 'No peers connected.')
          : table(
              ['id', 'address', 'direction', 'agent', 'synced blocks', 'sent / received', 'connected since', 'ping'],
              peers.map((p) => [
                p.id,
                p.addr,
                p.inbound ? 'in' : 'out',
                p.subver,
                p.synced_blocks,
                `${p.bytessent} / ${p.bytesrecv}`,
                time(p.conntime),
                p.pingtime === undefined ? '—' : `${(p.pingtime * 1000).toFixed(1)} ms`,
              ]),
            ),
      ),
    );
  };
  await draw();
  ctx.every(5000, () => void draw().catch(() => {}));
}
