/**
 * The README's start command and its production command, run as a user or a supervisor runs
 * them: SIGTERM or SIGINT to the process the command started stops the server gracefully (an
 * in-flight stream finishes), and nothing is left running or listening.
 */
import { Behaviour, FakeOpenAI } from "@switchyard/fake-providers"
import { type ChildProcess, spawn } from "node:child_process"
import { mkdtemp, readdir, readFile } from "node:fs/promises"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { chatBody, sseData } from "./support/Fixtures.ts"
import { ADMIN_KEY, freePort } from "./support/GatewayProcess.ts"

const repoRoot = new URL("../../../", import.meta.url).pathname
const readme = await readFile(join(repoRoot, "README.md"), "utf8")

/** The lines of the first `sh` block under `heading` in the README. */
const shellLines = (heading: string): ReadonlyArray<string> => {
  const section = readme.split(`\n${heading}\n`)[1] ?? ""
  const block = /```sh\n([\s\S]*?)```/.exec(section)?.[1] ?? ""
  return block.split("\n").filter((line) => line.trim() !== "" && !line.startsWith("#"))
}

const runIt = shellLines("## Run it")
const INSTALL = "npx -y pnpm@10.34.9 install --frozen-lockfile"
const startCommand = runIt.find((line) => line !== INSTALL) ?? ""
const productionCommand = shellLines("### In production").find((line) => line.includes("dist/main.js")) ?? ""

let fake: FakeOpenAI.FakeOpenAI
beforeAll(async () => {
  fake = await FakeOpenAI.start()
})
afterAll(() => fake.close())

interface Started {
  readonly child: ChildProcess
  readonly baseUrl: string
  readonly dataDir: string
  readonly exited: Promise<{ readonly code: number | null; readonly signal: NodeJS.Signals | null }>
  readonly output: () => string
}

/** Starts `command` (a README line, no shell syntax) from the repository root, as a shell would. */
const start = async (command: string): Promise<Started> => {
  const [file = "", ...args] = command.split(/\s+/)
  const port = await freePort()
  const dataDir = await mkdtemp(join(tmpdir(), "switchyard-start-"))
  const child = spawn(file, args, {
    cwd: repoRoot,
    env: {
      ...process.env,
      HOST: "127.0.0.1",
      PORT: String(port),
      GATEWAY_DATA_DIR: dataDir,
      GATEWAY_ADMIN_KEY: ADMIN_KEY
    },
    stdio: ["ignore", "pipe", "pipe"]
  })
  let output = ""
  child.stdout?.on("data", (data: Buffer) => (output += data.toString()))
  child.stderr?.on("data", (data: Buffer) => (output += data.toString()))
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once("exit", (code, signal) => resolve({ code, signal }))
  )
  const baseUrl = `http://127.0.0.1:${port}`
  // the first start may build the server first
  const deadline = Date.now() + 90_000
  while (!(await fetch(`${baseUrl}/health`).then((response) => response.ok, () => false))) {
    if (child.exitCode !== null || Date.now() > deadline) throw new Error(`${command} did not serve:\n${output}`)
    await new Promise((resolve) => setTimeout(resolve, 100))
  }
  return { child, baseUrl, dataDir, exited, output: () => output }
}

/** Processes whose environment holds `dataDir`: whatever that start left behind. */
const processesOf = async (dataDir: string): Promise<ReadonlyArray<number>> => {
  const found: Array<number> = []
  for (const entry of await readdir("/proc")) {
    if (!/^\d+$/.test(entry)) continue
    const environment = await readFile(`/proc/${entry}/environ`, "utf8").catch(() => "")
    if (environment.split("\0").includes(`GATEWAY_DATA_DIR=${dataDir}`)) found.push(Number(entry))
  }
  return found
}

const streamingChat = (baseUrl: string) => {
  fake.enqueue(Behaviour.slowStream(100))
  return fetch(`${baseUrl}/v1/chat/completions`, {
    method: "POST",
    headers: {
      "content-type": "application/json",
      "x-gateway-api-key": ADMIN_KEY,
      "x-gateway-provider": "openai",
      "x-gateway-custom-host": fake.baseUrl,
      authorization: "Bearer sk"
    },
    body: JSON.stringify(chatBody({ stream: true }))
  })
}

/** Sends `signal` during a stream: the stream ends complete, the process exits 0, nothing is left. */
const stopsGracefully = async (command: string, signal: NodeJS.Signals) => {
  const started = await start(command)
  try {
    // the process the command started is the server itself, not a wrapper around it
    const commandLine = await readFile(`/proc/${started.child.pid}/cmdline`, "utf8")
    expect(commandLine.split("\0").some((arg) => arg.endsWith("apps/server/dist/main.js"))).toBe(true)
    const response = await streamingChat(started.baseUrl)
    expect(response.status).toBe(200)
    started.child.kill(signal)
    expect(sseData(await response.text()).at(-1)).toBe("[DONE]")
    expect(await started.exited).toEqual({ code: 0, signal: null })
    await expect(fetch(`${started.baseUrl}/health`)).rejects.toThrow()
    expect(await processesOf(started.dataDir)).toEqual([])
  } finally {
    if (started.child.exitCode === null) started.child.kill("SIGKILL")
  }
}

describe("the README's start command", () => {
  it("is the install line and one command that starts the server", () => {
    expect(runIt).toEqual([INSTALL, startCommand])
    expect(startCommand).toBe("node_modules/node/bin/node scripts/start.ts")
  })

  for (const signal of ["SIGTERM", "SIGINT"] as const) {
    it(`stops gracefully on ${signal} to the process it started, finishing a stream, leaving nothing`, async () => {
      await stopsGracefully(startCommand, signal)
    }, 120_000)
  }
})

/** The README's build step of the production section, run as a supervisor's build would. */
const build = (command: string) =>
  new Promise<number | null>((resolve) => {
    const [file = "", ...args] = command.split(/\s+/)
    spawn(file, args, { cwd: repoRoot, stdio: "ignore" }).once("exit", resolve)
  })

describe("the README's production command", () => {
  it("builds, then runs the built entry with node, which takes SIGTERM directly", async () => {
    const [buildCommand = ""] = shellLines("### In production")
    expect(buildCommand).toBe("npx tsc -b apps/server/tsconfig.src.json")
    expect(productionCommand).toMatch(/^node_modules\/node\/bin\/node .*apps\/server\/dist\/main\.js$/)
    expect(await build(buildCommand)).toBe(0)
    await stopsGracefully(productionCommand, "SIGTERM")
  }, 120_000)
})
