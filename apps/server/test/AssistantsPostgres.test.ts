import { Behaviour, FakeOpenAI } from "@switchyard/fake-providers"
import { execFileSync } from "node:child_process"
import { randomBytes } from "node:crypto"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { call } from "./support/Admin.ts"
import * as GatewayProcess from "./support/GatewayProcess.ts"

/** Threads kept in Postgres and shared by two replicas, each with its own data dir. */
describe("assistants on Postgres, shared by two replicas", () => {
  const database = `switchyard_assistants_${randomBytes(4).toString("hex")}`
  const psql = (sql: string) => execFileSync("psql", ["-h", "127.0.0.1", "-U", "postgres", "-d", "test", "-c", sql])
  const env = {
    DATABASE_URL: `postgres://postgres@127.0.0.1:5432/${database}`,
    GATEWAY_SECRET: randomBytes(32).toString("base64")
  }
  let fake: FakeOpenAI.FakeOpenAI
  let first: GatewayProcess.GatewayProcess
  let second: GatewayProcess.GatewayProcess | undefined

  beforeAll(async () => {
    psql(`CREATE DATABASE ${database}`)
    fake = await FakeOpenAI.start()
    first = await GatewayProcess.start(env)
  }, 60_000)
  afterAll(async () => {
    // the fake first: the call it holds then fails, and no replica waits on it while stopping
    await fake?.close()
    await first?.stop()
    await second?.stop()
    psql(`DROP DATABASE IF EXISTS ${database} WITH (FORCE)`)
  })

  const settled = async (baseUrl: string, threadId: string, runId: string) => {
    for (let attempt = 0; attempt < 250; attempt++) {
      const run = await call(baseUrl, "GET", `/v1/threads/${threadId}/runs/${runId}`)
      if (!["queued", "in_progress"].includes(run.body.status)) return run.body
      await new Promise((resolve) => setTimeout(resolve, 20))
    }
    throw new Error(`run ${runId} did not end`)
  }

  it("runs on one replica a thread created on the other, and leaves a replica's leased run alone", async () => {
    const assistant = await call(first.baseUrl, "POST", "/v1/assistants", {
      body: { model: "gpt-4o-mini", instructions: "Be brief." }
    })
    const thread = await call(first.baseUrl, "POST", "/v1/threads", {
      body: { messages: [{ role: "user", content: "hi" }], metadata: { replica: "first" } },
      headers: { "x-gateway-provider": "openai", "x-gateway-custom-host": fake.baseUrl, authorization: "Bearer sk-pg" }
    })
    expect(thread.status, thread.text).toBe(200)
    const threadId = String(thread.body.id)
    // the first replica works on a run the provider holds
    fake.enqueue(Behaviour.stall())
    const held = await call(first.baseUrl, "POST", `/v1/threads/${threadId}/runs`, {
      body: { assistant_id: assistant.body.id }
    })
    for (let attempt = 0; attempt < 250 && fake.requests.length === 0; attempt++) {
      await new Promise((resolve) => setTimeout(resolve, 20))
    }
    second = await GatewayProcess.start(env)
    // the second replica's start-up sweep leaves the first's leased run in progress
    await new Promise((resolve) => setTimeout(resolve, 300))
    const seen = await call(second.baseUrl, "GET", `/v1/threads/${threadId}/runs/${held.body.id}`)
    expect(seen.body.status).toBe("in_progress")
    const cancelled = await call(second.baseUrl, "POST", `/v1/threads/${threadId}/runs/${held.body.id}/cancel`)
    expect(cancelled.body.status).toBe("cancelled")

    // the thread's sealed selection opens on the second replica too
    const run = await call(second.baseUrl, "POST", `/v1/threads/${threadId}/runs`, {
      body: { assistant_id: assistant.body.id }
    })
    const done = await settled(first.baseUrl, threadId, String(run.body.id))
    expect(done.status).toBe("completed")
    expect(fake.requests.at(-1)?.headers.authorization).toBe("Bearer sk-pg")
    const messages = await call(first.baseUrl, "GET", `/v1/threads/${threadId}/messages?order=asc&limit=1`)
    expect(messages.body).toMatchObject({ has_more: true, data: [{ role: "user" }] })
    const next = await call(
      first.baseUrl,
      "GET",
      `/v1/threads/${threadId}/messages?order=asc&after=${messages.body.last_id}`
    )
    expect(next.body).toMatchObject({ has_more: false, data: [{ role: "assistant", run_id: run.body.id }] })
    // the cancellation stands on the first replica too
    expect((await call(first.baseUrl, "GET", `/v1/threads/${threadId}/runs/${held.body.id}`)).body.status).toBe(
      "cancelled"
    )
  })
})
