import { Behaviour, FakeOpenAI } from "@switchyard/fake-providers"
import { type ChildProcess, execFileSync, spawn } from "node:child_process"
import { randomBytes } from "node:crypto"
import { mkdtemp } from "node:fs/promises"
import { tmpdir } from "node:os"
import { join } from "node:path"
import OpenAI, { toFile } from "openai"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import * as GatewayProcess from "../../server/test/support/GatewayProcess.ts"

const MAIN = new URL("../src/main.ts", import.meta.url).pathname
const LINES = 60
/** The worker's takers in these tests (GATEWAY_BATCH_WORKER_CONCURRENCY): at most this many lines are in flight. */
const TAKERS = 8

/** A worker process on the shared database, as `switchyard-worker` starts it. */
const startWorker = async (env: Readonly<Record<string, string>>) => {
  const dataDir = await mkdtemp(join(tmpdir(), "switchyard-worker-"))
  const child = spawn(process.execPath, ["--conditions=@switchyard/source", MAIN], {
    env: { ...process.env, ...env, GATEWAY_DATA_DIR: dataDir, GATEWAY_ADMIN_KEY: GatewayProcess.ADMIN_KEY },
    stdio: ["ignore", "pipe", "pipe"]
  })
  let output = ""
  child.stdout.on("data", (data: Buffer) => (output += data.toString()))
  child.stderr.on("data", (data: Buffer) => (output += data.toString()))
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()))
  return { child, output: () => output, exited }
}

const stop = async (
  worker: { readonly child: ChildProcess; readonly exited: Promise<void> },
  signal: NodeJS.Signals
) => {
  if (worker.child.exitCode === null && worker.child.signalCode === null) worker.child.kill(signal)
  await worker.exited
}

/**
 * Workers on one Postgres: the server runs none (GATEWAY_WORKER=off). One worker is killed with
 * SIGKILL mid-batch; two others finish it, and every custom_id is answered exactly once.
 */
describe("batch workers on Postgres, apart from the server", () => {
  const database = `switchyard_workers_${randomBytes(4).toString("hex")}`
  const psql = (sql: string) => execFileSync("psql", ["-h", "127.0.0.1", "-U", "postgres", "-d", "test", "-c", sql])
  const env = {
    DATABASE_URL: `postgres://postgres@127.0.0.1:5432/${database}`,
    GATEWAY_SECRET: randomBytes(32).toString("base64"),
    GATEWAY_BATCH_LEASE_SECONDS: "2",
    GATEWAY_BATCH_WORKER_CONCURRENCY: String(TAKERS),
    GATEWAY_LOG_FORMAT: "json"
  }
  let fake: FakeOpenAI.FakeOpenAI
  let server: GatewayProcess.GatewayProcess
  const workers: Array<Awaited<ReturnType<typeof startWorker>>> = []

  beforeAll(async () => {
    psql(`CREATE DATABASE ${database}`)
    fake = await FakeOpenAI.start()
    // each answer takes a while, so the first worker is killed with lines in flight
    fake.setDefault(Behaviour.delay(150, Behaviour.reply()))
    server = await GatewayProcess.start({ ...env, GATEWAY_WORKER: "off" })
  }, 60_000)
  afterAll(async () => {
    for (const worker of workers) await stop(worker, "SIGTERM")
    await server?.stop()
    await fake?.close()
    psql(`DROP DATABASE IF EXISTS ${database} WITH (FORCE)`)
  })

  it("loses no line and answers none twice when a worker is killed mid-batch", async () => {
    const openai = new OpenAI({
      apiKey: "sk-upstream",
      baseURL: `${server.baseUrl}/v1`,
      defaultHeaders: {
        "x-gateway-api-key": GatewayProcess.ADMIN_KEY,
        "x-gateway-provider": "openai",
        "x-gateway-custom-host": fake.baseUrl
      },
      maxRetries: 0
    })
    const lines = Array.from({ length: LINES }, (_, index) =>
      JSON.stringify({
        custom_id: `line-${index}`,
        method: "POST",
        url: "/v1/chat/completions",
        body: { model: "gpt-4o-mini", messages: [{ role: "user", content: `question ${index}` }] }
      }))
    const input = await openai.files.create({
      file: await toFile(Buffer.from(`${lines.join("\n")}\n`), "input.jsonl"),
      purpose: "batch"
    })
    const created = await openai.batches.create({
      input_file_id: input.id,
      endpoint: "/v1/chat/completions",
      completion_window: "24h"
    })
    // no worker yet: the server leaves the batch alone
    await new Promise((resolve) => setTimeout(resolve, 500))
    expect((await openai.batches.retrieve(created.id)).status).toBe("validating")

    const first = await startWorker(env)
    workers.push(first)
    let progress = 0
    for (let attempt = 0; attempt < 400 && progress < 5; attempt++) {
      await new Promise((resolve) => setTimeout(resolve, 25))
      progress = (await openai.batches.retrieve(created.id)).request_counts?.completed ?? 0
    }
    expect(progress, first.output()).toBeGreaterThan(0)
    // it logs as the server does: GATEWAY_LOG_FORMAT=json, one object per line, its settings in it
    const started = first.output().trim().split("\n").map((line) => JSON.parse(line)).find((line) =>
      line.msg === "batch worker: taking jobs"
    )
    expect(started).toMatchObject({ level: "info", concurrency: TAKERS })
    await stop(first, "SIGKILL")
    const partial = (await openai.batches.retrieve(created.id)).request_counts?.completed ?? 0
    expect(partial).toBeLessThan(LINES)

    workers.push(await startWorker(env), await startWorker(env))
    let batch = await openai.batches.retrieve(created.id)
    for (let attempt = 0; attempt < 1200 && batch.status !== "completed"; attempt++) {
      await new Promise((resolve) => setTimeout(resolve, 25))
      batch = await openai.batches.retrieve(created.id)
    }
    expect(batch.status).toBe("completed")
    expect(batch.request_counts).toEqual({ total: LINES, completed: LINES, failed: 0 })
    const output = (await (await openai.files.content(batch.output_file_id ?? "")).text()).trim().split("\n")
    const answered = output.map((text) => JSON.parse(text).custom_id)
    expect(answered).toEqual(lines.map((_, index) => `line-${index}`))
    // each line reached the provider once, but those in flight at the kill (at most the killed worker's takers)
    const sent = fake.requests.filter((request) => request.path === "/v1/chat/completions").length
    expect(sent).toBeGreaterThanOrEqual(LINES)
    expect(sent).toBeLessThanOrEqual(LINES + TAKERS)
  }, 90_000)

  it.each([
    ["GATEWAY_BATCH_WORKER_CONCURRENCY", "0"],
    ["GATEWAY_BATCH_LINES_PER_TARGET", "-1"],
    ["GATEWAY_BATCH_LINES_IN_FLIGHT", "2.5"],
    ["GATEWAY_LOG_FORMAT", "xml"],
    ["GATEWAY_LOG_LEVEL", "verbose"]
  ])("refuses to start with %s=%s, naming the variable", async (name, value) => {
    const worker = await startWorker({ ...env, [name]: value })
    await worker.exited
    expect(worker.child.exitCode).not.toBe(0)
    expect(worker.output()).toContain(name)
  }, 30_000)

  it("logs from GATEWAY_LOG_LEVEL up only", async () => {
    // two workers started together: by the time the one at info says it is taking jobs, the one at warn
    // has started as well, and has not said it
    const worker = await startWorker({ ...env, GATEWAY_LOG_LEVEL: "warn" })
    workers.push(worker)
    const quiet = await startWorker({ ...env, GATEWAY_LOG_LEVEL: "info" })
    workers.push(quiet)
    for (let attempt = 0; attempt < 1600 && !quiet.output().includes("taking jobs"); attempt++) {
      await new Promise((resolve) => setTimeout(resolve, 25))
    }
    expect(quiet.output()).toContain("taking jobs")
    expect(worker.output()).not.toContain("taking jobs")
    expect(worker.child.exitCode).toBeNull()
  }, 60_000)
})
