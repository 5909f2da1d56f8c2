/**
 * A redis-server of a test's own, on a free port of 127.0.0.1, that the test can kill, pause and
 * start again on the same port, to play a Redis outage. Never the machine's shared Redis on 6379.
 * It runs the `redis-server` found on PATH, without persistence.
 */
import { type ChildProcess, spawn } from "node:child_process"
import { connect, createServer } from "node:net"

export interface RedisServer {
  readonly port: number
  readonly url: string
  /** Kills the process (SIGKILL: no goodbye to clients) and resolves once it has exited. */
  readonly kill: () => Promise<void>
  /** Starts it again on the same port; resolves once it accepts connections. */
  readonly restart: () => Promise<void>
  /** Stops (SIGSTOP) the process: connections stay open, nothing answers. */
  readonly pause: () => void
  readonly resume: () => void
}

const freePort = (): Promise<number> =>
  new Promise((resolve, reject) => {
    const server = createServer()
    server.once("error", reject)
    server.listen(0, "127.0.0.1", () => {
      const address = server.address()
      const port = typeof address === "object" && address !== null ? address.port : 0
      server.close(() => resolve(port))
    })
  })

const accepts = (port: number): Promise<boolean> =>
  new Promise((resolve) => {
    const socket = connect({ port, host: "127.0.0.1" })
    socket.once("connect", () => {
      socket.destroy()
      resolve(true)
    })
    socket.once("error", () => resolve(false))
  })

const spawnServer = async (port: number): Promise<ChildProcess> => {
  const child = spawn(
    "redis-server",
    ["--port", String(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no", "--daemonize", "no"],
    { stdio: "ignore" }
  )
  // a test that times out never reaches its `kill`: the server must not outlive the test run
  const killOnExit = () => child.kill("SIGKILL")
  process.once("exit", killOnExit)
  child.once("exit", () => process.off("exit", killOnExit))
  const deadline = Date.now() + 10_000
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`redis-server on port ${port} exited with ${child.exitCode}`)
    if (await accepts(port)) return child
    await new Promise((resolve) => setTimeout(resolve, 20))
  }
  child.kill("SIGKILL")
  throw new Error(`redis-server on port ${port} did not start within 10 s`)
}

const exited = (child: ChildProcess): Promise<void> =>
  child.exitCode !== null || child.signalCode !== null
    ? Promise.resolve()
    : new Promise((resolve) => child.once("exit", () => resolve()))

/**
 * Starts a redis-server on a free port (or on `port`) and resolves once it accepts connections.
 * Call `kill` when done; a server still running when the process exits is killed then.
 *
 * @example
 * import { RedisServer } from "@switchyard/fake-providers"
 *
 * const redis = await RedisServer.start()
 * await redis.kill() // commands to redis.url now fail: connection refused
 * await redis.restart() // the same port again
 */
export const start = async (port?: number): Promise<RedisServer> => {
  const chosen = port ?? (await freePort())
  let child = await spawnServer(chosen)
  return {
    port: chosen,
    url: `redis://127.0.0.1:${chosen}`,
    kill: () => {
      child.kill("SIGKILL")
      return exited(child)
    },
    restart: async () => {
      child = await spawnServer(chosen)
    },
    pause: () => {
      child.kill("SIGSTOP")
    },
    resume: () => {
      child.kill("SIGCONT")
    }
  }
}

/** A free port with nothing listening on it (yet). */
export const unusedPort = freePort
