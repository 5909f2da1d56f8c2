/**
 * `npx pnpm test`: runs Vitest (arguments passed on) once the services some suites talk to are up.
 * Postgres (`SWITCHYARD_TEST_DATABASE_URL`, default `postgres://postgres@127.0.0.1:5432/test`) and
 * Redis (`127.0.0.1:6379`) are started as `.ci/run` starts them when they are installed but down;
 * one that still does not answer is named, with the test files that need it, before and after
 * the run, so that their connection errors are not a mystery. The exit code is Vitest's.
 */
import { execFileSync, spawn } from "node:child_process"
import { existsSync, mkdirSync, readdirSync, readFileSync } from "node:fs"
import { connect } from "node:net"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { fileURLToPath } from "node:url"

const root = fileURLToPath(new URL("..", import.meta.url))

interface Service {
  readonly name: string
  readonly url: string
  readonly host: string
  readonly port: number
  /** Starts the machine's own server, when it is the one at `url` and installed. */
  readonly start: (() => void) | undefined
  /** A test file that mentions one of these needs the service. */
  readonly marker: RegExp
}

const installed = (command: string): boolean => {
  try {
    execFileSync("sh", ["-c", `command -v ${command}`], { stdio: "ignore" })
    return true
  } catch {
    return false
  }
}

const isLocal = (host: string) => host === "127.0.0.1" || host === "localhost"

const postgres = (): Service => {
  const url = process.env.SWITCHYARD_TEST_DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/test"
  const { hostname, port } = new URL(url)
  const versions = existsSync("/etc/postgresql") ? readdirSync("/etc/postgresql") : []
  const local = isLocal(hostname) && (port === "" || port === "5432")
  return {
    name: "Postgres",
    url,
    host: hostname,
    port: port === "" ? 5432 : Number(port),
    start: local && versions[0] !== undefined && installed("pg_ctlcluster")
      ? () => execFileSync("pg_ctlcluster", ["--skip-systemctl-redirect", versions[0] ?? "", "main", "start"])
      : undefined,
    marker: /TestDatabase\.(?:dialects|layerPostgres|DEFAULT_POSTGRES_URL)|postgres:\/\/postgres@127\.0\.0\.1/
  }
}

const redis = (): Service => {
  const dir = join(tmpdir(), "switchyard-test-redis")
  return {
    name: "Redis",
    url: "redis://127.0.0.1:6379",
    host: "127.0.0.1",
    port: 6379,
    // as .ci/run starts it, but in a directory any user may write
    start: installed("redis-server")
      ? () => {
        mkdirSync(dir, { recursive: true })
        execFileSync("redis-server", [
          "--daemonize",
          "yes",
          "--bind",
          "127.0.0.1",
          "-::1",
          "--port",
          "6379",
          "--save",
          "",
          "--appendonly",
          "no",
          "--dir",
          dir,
          "--logfile",
          join(dir, "redis.log")
        ])
      }
      : undefined,
    marker: /redis:\/\/127\.0\.0\.1:6379|RedisServer\.start/
  }
}

const answers = (host: string, port: number): Promise<boolean> =>
  new Promise((resolve) => {
    const socket = connect({ host, port })
    socket.setTimeout(1_000)
    socket.once("connect", () => {
      socket.destroy()
      resolve(true)
    })
    socket.once("timeout", () => {
      socket.destroy()
      resolve(false)
    })
    socket.once("error", () => resolve(false))
  })

/** Whether `service` answers, after starting it when it is installed but down (up to 30 s). */
const ensure = async (service: Service): Promise<boolean> => {
  if (await answers(service.host, service.port)) return true
  if (service.start === undefined) return false
  console.log(`${service.name} at ${service.url} is down; starting it`)
  try {
    service.start()
  } catch {
    return false
  }
  for (let tries = 0; tries < 30; tries++) {
    if (await answers(service.host, service.port)) return true
    await new Promise((resolve) => setTimeout(resolve, 1_000))
  }
  return false
}

const testFiles = (): ReadonlyArray<string> => {
  const files: Array<string> = []
  const walk = (dir: string) => {
    for (const entry of readdirSync(join(root, dir), { withFileTypes: true })) {
      const path = join(dir, entry.name)
      if (entry.isDirectory() && entry.name !== "node_modules") walk(path)
      else if (entry.name.endsWith(".test.ts")) files.push(path)
    }
  }
  for (const dir of ["packages", "apps", "bench"]) walk(dir)
  return files.filter((file) => file.split("/").includes("test")).sort()
}

const notice = (missing: ReadonlyArray<Service>): string => {
  const files = testFiles()
  return missing.map((service) => {
    const needing = files.filter((file) => service.marker.test(readFileSync(join(root, file), "utf8")))
    return `${service.name} at ${service.url} does not answer and could not be started here` +
      `${service.start === undefined ? " (not installed, or not this machine's own)" : ""}; ` +
      `these tests need it and will fail with connection errors:\n${needing.map((file) => `  ${file}`).join("\n")}`
  }).join("\n")
}

const services = [postgres(), redis()]
const up = await Promise.all(services.map(ensure))
const missing = services.filter((_, index) => up[index] !== true)
if (missing.length > 0) console.log(`\n${notice(missing)}\n`)

const vitest = spawn(
  process.execPath,
  [join(root, "node_modules/vitest/vitest.mjs"), "run", ...process.argv.slice(2)],
  {
    cwd: root,
    stdio: "inherit"
  }
)
// Vitest stops its workers on these itself; this process only waits for it
const forward = (signal: NodeJS.Signals) => vitest.kill(signal)
process.on("SIGINT", forward).on("SIGTERM", forward)
vitest.once("exit", (code, signal) => {
  if (missing.length > 0) console.log(`\n${notice(missing)}`)
  process.exitCode = code ?? (signal === null ? 1 : 128)
})
