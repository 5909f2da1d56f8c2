/**
 * The request log on Postgres, under a database that misbehaves (extensions.md: a slow or failing
 * database never slows or fails a request): while another session holds the log's table locked,
 * requests are answered at once and their records are written once the lock goes; with the table
 * gone, requests are still answered and the records that could not be written are counted in
 * `gateway_log_records_dropped_total`.
 */
import { FakeOpenAI } from "@switchyard/fake-providers"
import { type ChildProcess, execFileSync, spawn } from "node:child_process"
import { randomBytes } from "node:crypto"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { call } from "./support/Admin.ts"
import { chatBody } from "./support/Fixtures.ts"
import * as GatewayProcess from "./support/GatewayProcess.ts"

const database = `switchyard_logs_${randomBytes(4).toString("hex")}`
const psqlArgs = (
  sql: string
) => ["-h", "127.0.0.1", "-U", "postgres", "-d", database, "-v", "ON_ERROR_STOP=1", "-c", sql]
const psql = (sql: string, db = database) =>
  execFileSync("psql", ["-h", "127.0.0.1", "-U", "postgres", "-d", db, "-c", sql]).toString()

let fake: FakeOpenAI.FakeOpenAI
let gateway: GatewayProcess.GatewayProcess

beforeAll(async () => {
  psql(`CREATE DATABASE ${database}`, "test")
  fake = await FakeOpenAI.start()
  gateway = await GatewayProcess.start({
    DATABASE_URL: `postgres://postgres@127.0.0.1:5432/${database}`,
    GATEWAY_SECRET: randomBytes(32).toString("base64"),
    GATEWAY_LOG_LEVEL: "error"
  })
}, 60_000)
afterAll(async () => {
  await gateway?.stop()
  await fake?.close()
  psql(`DROP DATABASE IF EXISTS ${database} WITH (FORCE)`, "test")
})

const chat = async (traceId: string) => {
  const response = await fetch(`${gateway.baseUrl}/v1/chat/completions`, {
    method: "POST",
    headers: {
      "content-type": "application/json",
      "x-gateway-api-key": GatewayProcess.ADMIN_KEY,
      "x-gateway-provider": "openai",
      "x-gateway-custom-host": fake.baseUrl,
      "x-gateway-trace-id": traceId,
      authorization: "Bearer sk-upstream"
    },
    body: JSON.stringify(chatBody())
  })
  await response.text()
  return response.status
}

const droppedWriteFailed = async (): Promise<number> => {
  const text = await (await fetch(`${gateway.baseUrl}/metrics`)).text()
  const line = text.split("\n").find((l) => l.startsWith("gateway_log_records_dropped_total{reason=\"write_failed\"}"))
  return line === undefined ? 0 : Number(line.slice(line.lastIndexOf(" ") + 1))
}

/** The lock holder's session is found by this name, to be ended: killing psql mid-sleep would not end it. */
const HOLDER = "switchyard-log-lock-holder"

/** A session that holds the log's table locked until {@link releaseTable}. */
const lockTable = async (): Promise<ChildProcess> => {
  const holder = spawn(
    "psql",
    psqlArgs("BEGIN; LOCK TABLE request_logs IN ACCESS EXCLUSIVE MODE; SELECT pg_sleep(600);"),
    {
      env: { ...process.env, PGAPPNAME: HOLDER },
      stdio: "ignore"
    }
  )
  const deadline = Date.now() + 15_000
  while (Date.now() < deadline) {
    const held = psql(
      "SELECT count(*) FROM pg_locks l JOIN pg_class c ON l.relation = c.oid " +
        "WHERE c.relname = 'request_logs' AND l.mode = 'AccessExclusiveLock' AND l.granted"
    )
    if (/\n\s*1\n/.test(held)) return holder
    await new Promise((resolve) => setTimeout(resolve, 50))
  }
  throw new Error("the lock holder did not take the lock")
}

/** How many of the gateway's statements on the log's table wait for a lock. */
const waitingInserts = () =>
  psql(
    "SELECT count(*) FROM pg_stat_activity WHERE application_name = 'switchyard' " +
      "AND wait_event_type = 'Lock' AND query ILIKE 'INSERT INTO request_logs%'"
  )

const releaseTable = (holder: ChildProcess) => {
  psql(`SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = '${HOLDER}'`)
  holder.kill()
}

describe("the request log on a misbehaving Postgres", () => {
  it("answers every request while the log's table is locked, and writes the records once it is not", async () => {
    const holder = await lockTable()
    const traces = Array.from({ length: 10 }, (_, n) => `locked-${n}-${randomBytes(4).toString("hex")}`)
    try {
      expect(await chat(traces[0] ?? "")).toBe(200)
      // the writer's INSERT of that record now waits on the lock (it writes within a second)
      const deadline = Date.now() + 10_000
      while (Date.now() < deadline && !/\n\s*1\n/.test(waitingInserts())) {
        await new Promise((resolve) => setTimeout(resolve, 50))
      }
      expect(waitingInserts()).toMatch(/\n\s*1\n/)
      for (const traceId of traces.slice(1)) expect(await chat(traceId)).toBe(200)
      // every answer came while the lock was held: none waited for the log's writes
      expect(psql(`SELECT count(*) FROM pg_stat_activity WHERE application_name = '${HOLDER}'`)).toMatch(/\n\s*1\n/)
    } finally {
      releaseTable(holder)
    }
    // the list writes what waits first: every record is there once the table is free
    for (const traceId of traces) {
      const listed = await call(gateway.baseUrl, "GET", `/v1/logs?trace_id=${traceId}`)
      expect(listed.status).toBe(200)
      expect(listed.body.data).toHaveLength(1)
    }
  })

  it("answers every request when the log's table is gone, and counts the records it could not write", async () => {
    const before = await droppedWriteFailed()
    psql("DROP TABLE request_logs")
    for (let n = 0; n < 5; n++) expect(await chat(`dropped-${n}`)).toBe(200)
    // the batch is written (and fails) within a second of the requests
    const deadline = Date.now() + 15_000
    while ((await droppedWriteFailed()) < before + 5 && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 200))
    }
    expect(await droppedWriteFailed()).toBe(before + 5)
    // reading it is the gateway's own failure, in the envelope
    expect((await call(gateway.baseUrl, "GET", "/v1/logs")).status).toBe(500)
  })
})
