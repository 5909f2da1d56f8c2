/**
 * A batch of `--lines` (default 10,000) chat lines against the fake OpenAI upstream, run by one
 * batch worker and then by two (apps/worker), on a fresh Postgres database each time; the server
 * runs with GATEWAY_WORKER=off and only takes the upload and the batch. The workers start first;
 * reports wall time from create (validation included) to completed, lines per second and the peak RSS (VmHWM) of each worker.
 *
 *   node --conditions=@switchyard/source bench/src/BatchBench.ts [--lines 10000]
 *
 * Needs `psql` and the Postgres server at 127.0.0.1:5432 (user postgres) that the tests use.
 */
import { FakeOpenAI } from "@switchyard/fake-providers"
import { type ChildProcess, execFileSync, spawn } from "node:child_process"
import { randomBytes } from "node:crypto"
import { mkdtempSync, readFileSync } from "node:fs"
import { createServer } from "node:net"
import { tmpdir } from "node:os"
import { join } from "node:path"

const root = new URL("../../", import.meta.url).pathname
const lineCount = Number(process.argv[process.argv.indexOf("--lines") + 1] ?? "") || 10_000
const ADMIN_KEY = "bench-admin-key"

const freePort = () =>
  new Promise<number>((resolve) => {
    const server = createServer().listen(0, "127.0.0.1", () => {
      const address = server.address()
      server.close(() => resolve(typeof address === "object" && address !== null ? address.port : 0))
    })
  })

/** The V8 flags of the production commands (root README, apps/worker README): they bound the peak RSS. */
const V8_FLAGS = ["--max-semi-space-size=8", "--heap-growing-percent=50"]

const start = (main: string, env: Record<string, string>): ChildProcess =>
  spawn(process.execPath, [...V8_FLAGS, "--conditions=@switchyard/source", join(root, main)], {
    env: { ...process.env, ...env, GATEWAY_LOG_LEVEL: "warn", GATEWAY_DATA_DIR: mkdtempSync(join(tmpdir(), "sy-")) },
    stdio: ["ignore", "ignore", "inherit"]
  })

const peakRssMiB = (pid: number | undefined): number => {
  const status = readFileSync(`/proc/${pid}/status`, "utf8")
  const kib = Number(/VmHWM:\s+(\d+)/.exec(status)?.[1] ?? "0")
  return Math.round(kib / 1024)
}

const api = async (base: string, method: string, path: string, body?: unknown) => {
  const response = await fetch(`${base}${path}`, {
    method,
    headers: {
      "x-gateway-api-key": ADMIN_KEY,
      "content-type": "application/json",
      "x-gateway-provider": "openai",
      "x-gateway-custom-host": fake.baseUrl,
      authorization: "Bearer sk-bench"
    },
    ...(body === undefined ? {} : { body: JSON.stringify(body) })
  })
  return answerOf(await response.json())
}

/** The members of an answer the bench reads; anything else stops the run with the answer. */
interface Answer {
  readonly id: string
  readonly status: string
  readonly request_counts: unknown
}
const answerOf = (value: unknown): Answer => {
  if (typeof value !== "object" || value === null || !("id" in value) || typeof value.id !== "string") {
    throw new Error(`unexpected answer: ${JSON.stringify(value)}`)
  }
  const status = "status" in value && typeof value.status === "string" ? value.status : ""
  return { id: value.id, status, request_counts: "request_counts" in value ? value.request_counts : null }
}

const fake = await FakeOpenAI.start()

const run = async (workers: number) => {
  const database = `switchyard_bench_${randomBytes(4).toString("hex")}`
  const psql = (sql: string) => execFileSync("psql", ["-h", "127.0.0.1", "-U", "postgres", "-d", "test", "-c", sql])
  psql(`CREATE DATABASE ${database}`)
  const env = {
    DATABASE_URL: `postgres://postgres@127.0.0.1:5432/${database}`,
    GATEWAY_SECRET: randomBytes(32).toString("base64"),
    GATEWAY_ADMIN_KEY: ADMIN_KEY
  }
  const port = await freePort()
  const base = `http://127.0.0.1:${port}`
  const server = start("apps/server/src/main.ts", {
    ...env,
    HOST: "127.0.0.1",
    PORT: String(port),
    GATEWAY_WORKER: "off"
  })
  const children: Array<ChildProcess> = [server]
  try {
    for (let attempt = 0; attempt < 400; attempt++) {
      if (await fetch(`${base}/health`).then((r) => r.ok, () => false)) break
      await new Promise((resolve) => setTimeout(resolve, 50))
    }
    const lines = Array.from({ length: lineCount }, (_, index) =>
      JSON.stringify({
        custom_id: `line-${index}`,
        method: "POST",
        url: "/v1/chat/completions",
        body: { model: "gpt-4o-mini", messages: [{ role: "user", content: `question ${index}` }] }
      })).join("\n")
    const form = new FormData()
    form.append("purpose", "batch")
    form.append("file", new Blob([lines]), "bench.jsonl")
    const file = answerOf(
      await (await fetch(`${base}/v1/files`, {
        method: "POST",
        headers: { "x-gateway-api-key": ADMIN_KEY },
        body: form
      })).json()
    )
    const pool = Array.from({ length: workers }, () => start("apps/worker/src/main.ts", env))
    children.push(...pool)
    // the workers' start-up (building the pipeline) is not the batch's time
    await new Promise((resolve) => setTimeout(resolve, 4000))
    const started = performance.now()
    const created = await api(base, "POST", "/v1/batches", {
      input_file_id: file.id,
      endpoint: "/v1/chat/completions",
      completion_window: "24h"
    })
    let batch = created
    while (!["completed", "failed", "cancelled", "expired"].includes(batch.status)) {
      await new Promise((resolve) => setTimeout(resolve, 200))
      batch = await api(base, "GET", `/v1/batches/${created.id}`)
    }
    const seconds = (performance.now() - started) / 1000
    return {
      workers,
      lines: lineCount,
      status: batch.status,
      counts: batch.request_counts,
      wallSeconds: Math.round(seconds * 10) / 10,
      linesPerSecond: Math.round(lineCount / seconds),
      peakRssMiB: pool.map((child) => peakRssMiB(child.pid))
    }
  } finally {
    for (const child of children) child.kill("SIGKILL")
    psql(`DROP DATABASE IF EXISTS ${database} WITH (FORCE)`)
  }
}

const results = [await run(1), await run(2)]
console.log(JSON.stringify(results, null, 2))
await fake.close()
