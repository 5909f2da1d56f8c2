/**
 * A TCP proxy on a free port of 127.0.0.1 in front of a real server (Postgres, Redis), that a test
 * can cut, to play that server going away without stopping the machine's shared one.
 */
import { connect, createServer, type Socket } from "node:net"

export interface TcpProxy {
  readonly port: number
  /** Closes every connection and refuses new ones, as a stopped server would. */
  readonly cut: () => Promise<void>
  /** Accepts connections again on the same port. */
  readonly restore: () => Promise<void>
  readonly close: () => Promise<void>
}

export const start = async (target: { readonly host: string; readonly port: number }): Promise<TcpProxy> => {
  const sockets = new Set<Socket>()
  const server = createServer((client) => {
    const upstream = connect(target)
    for (const socket of [client, upstream]) {
      sockets.add(socket)
      socket.once("close", () => sockets.delete(socket))
      socket.on("error", () => {
        client.destroy()
        upstream.destroy()
      })
    }
    client.pipe(upstream).pipe(client)
  })
  const listen = (port: number) =>
    new Promise<void>((resolve, reject) => {
      server.once("error", reject)
      server.listen(port, "127.0.0.1", () => {
        server.off("error", reject)
        resolve()
      })
    })
  const stop = () =>
    new Promise<void>((resolve) => {
      for (const socket of sockets) socket.destroy()
      if (!server.listening) return resolve()
      server.close(() => resolve())
    })
  await listen(0)
  const address = server.address()
  const port = typeof address === "object" && address !== null ? address.port : 0
  return { port, cut: stop, restore: () => listen(port), close: stop }
}
