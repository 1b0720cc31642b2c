import net from 'node:net';

export type ProxyMode =
  /** Every byte forwarded both ways. */
  | 'forward'
  /** Connections are accepted and then hang: a server that stopped answering. */
  | 'blackhole'
  /** Connections are closed as soon as they open: a server that is down. */
  | 'refuse';

export interface TcpProxy {
  port: number;
  setMode(mode: ProxyMode): void;
  /** Destroys every open connection at once, as a network cut would. */
  cutAll(): void;
  close(): Promise<void>;
}

/**
 * A TCP proxy between the service and PostgreSQL, for fault tests: break it
 * and the service sees a database that is down, hanging, or cut mid-query,
 * while the real server (which the tests must never touch) stays as it is.
 */
export async function startTcpProxy(target: { host: string; port: number }): Promise<TcpProxy> {
  let mode: ProxyMode = 'forward';
  const sockets = new Set<net.Socket>();
  const track = (socket: net.Socket): void => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => socket.destroy());
  };

  const server = net.createServer((client) => {
    track(client);
    if (mode === 'refuse') return void client.destroy();
    if (mode === 'blackhole') return;
    const upstream = net.connect(target.port, target.host);
    track(upstream);
    client.pipe(upstream).pipe(client);
    client.on('close', () => upstream.destroy());
    upstream.on('close', () => client.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));

  return {
    port: (server.address() as net.AddressInfo).port,
    setMode: (next) => {
      mode = next;
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
