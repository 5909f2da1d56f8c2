/**
 * Runs the real gateway server as a child process, as a user would start it, on a free port of
 * 127.0.0.1 with its own data dir.
 */
import { type ChildProcess, spawn } from "node:child_process"
import { mkdtemp } from "node:fs/promises"
import { createServer } from "node:net"
import { tmpdir } from "node:os"
import { join } from "node:path"

const MAIN = new URL("../../src/main.ts", import.meta.url).pathname
const SOURCE_CONDITION = "--conditions=@switchyard/source"

export interface GatewayProcess {
  readonly baseUrl: string
  readonly port: number
  readonly dataDir: string
  readonly child: ChildProcess
  /** Everything the process printed so far. */
  readonly output: () => string
  /** Sends a signal and resolves with the exit code once the process has ended. */
  readonly stop: (signal?: NodeJS.Signals) => Promise<number | null>
}

export const ADMIN_KEY = "test-admin-key"

export const freePort = (): Promise<number> =>
  new Promise((resolve, reject) => {
    const server = createServer()
    server.once("error", reject)
    server.listen(0, "127.0.0.1", () => {
      const address = server.address()
      const port = typeof address === "object" && address !== null ? address.port : 0
      server.close(() => resolve(port))
    })
  })

/** Starts the gateway; `env` adds to (or, with `undefined`, removes from) its environment. */
export const start = async (env: Readonly<Record<string, string | undefined>> = {}): Promise<GatewayProcess> => {
  const port = await freePort()
  const dataDir = env.GATEWAY_DATA_DIR ?? (await mkdtemp(join(tmpdir(), "switchyard-test-")))
  const childEnv: Record<string, string> = {}
  for (const [name, value] of Object.entries({ ...process.env, GATEWAY_ADMIN_KEY: ADMIN_KEY, ...env })) {
    if (value !== undefined) childEnv[name] = value
  }
  Object.assign(childEnv, { HOST: "127.0.0.1", PORT: String(port), GATEWAY_DATA_DIR: dataDir })
  // the workspace packages' sources, as the tests use them, rather than a build that may be stale
  const child = spawn(process.execPath, [SOURCE_CONDITION, MAIN], { env: childEnv, stdio: ["ignore", "pipe", "pipe"] })
  let output = ""
  child.stdout.on("data", (data: Buffer) => (output += data.toString()))
  child.stderr.on("data", (data: Buffer) => (output += data.toString()))
  const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)))
  const baseUrl = `http://127.0.0.1:${port}`
  // a gateway that never became healthy is killed, not left running (and loading the machine) after its test
  await waitUntilHealthy(baseUrl, exited, () => output).catch((error: unknown) => {
    child.kill("SIGKILL")
    throw error
  })
  return {
    baseUrl,
    port,
    dataDir,
    child,
    output: () => output,
    stop: (signal = "SIGTERM") => {
      if (child.exitCode === null && child.signalCode === null) child.kill(signal)
      return exited
    }
  }
}

const waitUntilHealthy = async (baseUrl: string, exited: Promise<number | null>, output: () => string) => {
  let done = false
  void exited.then(() => (done = true))
  const deadline = Date.now() + 20_000
  while (Date.now() < deadline) {
    if (done) throw new Error(`the gateway exited during start-up:\n${output()}`)
    const ok = await fetch(`${baseUrl}/health`, { signal: AbortSignal.timeout(2_000) }).then(
      (response) => response.ok,
      () => false
    )
    if (ok) return
    await new Promise((resolve) => setTimeout(resolve, 50))
  }
  throw new Error(`the gateway did not become healthy within 20 s:\n${output()}`)
}
