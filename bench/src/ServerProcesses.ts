import { existsSync, mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import type { ChildProcessGroup } from "./ChildProcessGroup.ts"
import { freePort, waitForStatus } from "./LocalHttp.ts"

/** A server the bench started: its origin (`http://127.0.0.1:PORT`) and its process id. */
export interface RunningServer {
  readonly origin: string
  readonly pid: number
}

export const repoRoot = fileURLToPath(new URL("../../", import.meta.url))
/** The repo's own Node binary, started directly so that SIGTERM reaches it. */
export const repoNode = join(repoRoot, "node_modules/node/bin/node")
export const gatewayEntry = join(repoRoot, "apps/server/dist/main.js")
/** The flags of the root `start` script: the gateway is measured as `pnpm start` runs it. */
export const gatewayNodeFlags = ["--conditions=dist", "--max-semi-space-size=8", "--heap-growing-percent=50"]

const startupTimeoutMs = 30_000
const listening = /^listening (http:\/\/127\.0\.0\.1:\d+)/

/** The fake OpenAI upstream (`@switchyard/fake-providers` cli), default behaviour. */
export const startFakeUpstream = async (group: ChildProcessGroup): Promise<RunningServer> => {
  const cli = join(repoRoot, "packages/fake-providers/src/cli.ts")
  const child = group.spawn("fake upstream", repoNode, [cli, "--port", "0"])
  const [, origin = ""] = await child.waitForLine(listening, startupTimeoutMs)
  return { origin, pid: child.pid }
}

export const startBareProxy = async (
  group: ChildProcessGroup,
  name: string,
  upstream: string
): Promise<RunningServer> => {
  const entry = join(repoRoot, "bench/src/BareProxy.ts")
  const child = group.spawn(name, repoNode, [entry, "--upstream", upstream, "--port", "0"])
  const [, origin = ""] = await child.waitForLine(listening, startupTimeoutMs)
  return { origin, pid: child.pid }
}

export const benchAdminKey = "bench-admin-key"

/** The Switchyard gateway (apps/server), with a fresh data directory; ready once GET /health is 200. */
export const startGateway = async (
  group: ChildProcessGroup,
  env: Readonly<Record<string, string>> = {}
): Promise<RunningServer> => {
  const port = await freePort()
  const dataDir = mkdtempSync(join(tmpdir(), "switchyard-bench-"))
  process.once("exit", () => rmSync(dataDir, { recursive: true, force: true }))
  const child = group.spawn("gateway", repoNode, [...gatewayNodeFlags, gatewayEntry], {
    HOST: "127.0.0.1",
    PORT: String(port),
    GATEWAY_ADMIN_KEY: benchAdminKey,
    GATEWAY_DATA_DIR: dataDir,
    // its access lines (one per request, as in production) go to a file, not through the bench
    GATEWAY_LOG_FORMAT: "json",
    ...env
  }, join(dataDir, "gateway.log"))
  const origin = `http://127.0.0.1:${port}`
  await waitForStatus(`${origin}/health`, 200, child, startupTimeoutMs)
  return { origin, pid: child.pid }
}

export const gatewayExists = (): boolean => existsSync(gatewayEntry)
