import net from 'node:net';

export type ProxyMode =
  /** Every byte forwarded both ways (after the latency, if one is set). */
  | 'forward'
  /** New connections are accepted and then hang; open ones keep forwarding: a server that stopped accepting. */
  | 'blackhole'
  /** New connections are closed as soon as they open: a server that is down. */
  | 'refuse'
  /** Every byte, on open and new connections, is held both ways and delivered when forwarding resumes: a network that stalls. */
  | 'stall'
  /** Every byte, on open and new connections, is thrown away both ways: a network that silently drops packets. */
  | 'drop';

export interface TcpProxy {
  port: number;
  setMode(mode: ProxyMode): void;
  /** Delays every forwarded chunk by this many milliseconds (0: none). */
  setLatency(ms: number): void;
  /** Destroys every open connection at once, as a network cut would. */
  cutAll(): void;
  close(): Promise<void>;
}

/** One direction of one connection: where its bytes go, and what is held while stalled. */
interface Direction {
  to: net.Socket;
  held: Buffer[];
}

/**
 * A TCP proxy between the service and PostgreSQL, for fault tests: break it
 * and the service sees a database that is down, hanging, slow, silently
 * dropping packets, or cut mid-query, while the real server (which the tests
 * must never touch) stays as it is.
 */
export async function startTcpProxy(target: { host: string; port: number }): Promise<TcpProxy> {
  let mode: ProxyMode = 'forward';
  let latencyMs = 0;
  const sockets = new Set<net.Socket>();
  const directions = new Set<Direction>();
  const track = (socket: net.Socket): void => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => socket.destroy());
  };
  const deliver = (direction: Direction, chunk: Buffer): void => {
    if (latencyMs === 0) direction.to.write(chunk);
    // Equal delays fire in the order they were set, so the stream stays in order.
    else setTimeout(() => direction.to.writable && direction.to.write(chunk), latencyMs);
  };
  const relay = (from: net.Socket, to: net.Socket): void => {
    const direction: Direction = { to, held: [] };
    directions.add(direction);
    from.on('data', (chunk: Buffer) => {
      if (mode === 'drop') return;
      if (mode === 'stall') direction.held.push(chunk);
      else deliver(direction, chunk);
    });
    from.on('close', () => {
      directions.delete(direction);
      to.destroy();
    });
  };

  const server = net.createServer((client) => {
    track(client);
    if (mode === 'refuse') return void client.destroy();
    if (mode === 'blackhole') return;
    const upstream = net.connect(target.port, target.host);
    track(upstream);
    relay(client, upstream);
    relay(upstream, client);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));

  return {
    port: (server.address() as net.AddressInfo).port,
    setMode: (next) => {
      mode = next;
      if (mode !== 'forward') return;
      for (const direction of directions) {
        for (const chunk of direction.held.splice(0)) deliver(direction, chunk);
      }
    },
    setLatency: (ms) => {
      latencyMs = ms;
    },
    cutAll: () => {
      for (const socket of sockets) socket.destroy();
    },
    close: async () => {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
