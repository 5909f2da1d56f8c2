import { Behaviour, FakeOpenAI } from "@switchyard/fake-providers"
import { mkdtemp } from "node:fs/promises"
import { tmpdir } from "node:os"
import { join } from "node:path"
import OpenAI, { toFile } from "openai"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import * as GatewayProcess from "./support/GatewayProcess.ts"

const LINES = 40

/** The embedded default (SQLite in the data dir, the worker inside the server) killed mid-batch. */
describe("a batch across a kill -9 of the server (embedded SQLite)", () => {
  let fake: FakeOpenAI.FakeOpenAI
  let dataDir: string
  let gateway: GatewayProcess.GatewayProcess | undefined
  // a held job is taken again 2 s after the process holding it died
  const env = () => ({ GATEWAY_DATA_DIR: dataDir, GATEWAY_BATCH_LEASE_SECONDS: "2" })

  beforeAll(async () => {
    fake = await FakeOpenAI.start()
    // each answer takes a while, so the kill finds lines in flight
    fake.setDefault(Behaviour.delay(150, Behaviour.reply()))
    dataDir = await mkdtemp(join(tmpdir(), "switchyard-batch-restart-"))
    gateway = await GatewayProcess.start(env())
  }, 30_000)
  afterAll(async () => {
    await gateway?.stop()
    await fake?.close()
  })

  const client = (baseUrl: string) =>
    new OpenAI({
      apiKey: "sk-upstream",
      baseURL: `${baseUrl}/v1`,
      defaultHeaders: {
        "x-gateway-api-key": GatewayProcess.ADMIN_KEY,
        "x-gateway-provider": "openai",
        "x-gateway-custom-host": fake.baseUrl
      },
      maxRetries: 0
    })

  it("loses no line and keeps one answer per line after a restart", async () => {
    const first = gateway
    if (first === undefined) throw new Error("no gateway")
    const openai = client(first.baseUrl)
    const lines = Array.from({ length: LINES }, (_, index) =>
      JSON.stringify({
        custom_id: `line-${index}`,
        method: "POST",
        url: "/v1/chat/completions",
        body: { model: "gpt-4o-mini", messages: [{ role: "user", content: `q${index}` }] }
      }))
    const input = await openai.files.create({
      file: await toFile(Buffer.from(lines.join("\n")), "input.jsonl"),
      purpose: "batch"
    })
    const created = await openai.batches.create({
      input_file_id: input.id,
      endpoint: "/v1/chat/completions",
      completion_window: "24h"
    })
    let completed = 0
    for (let attempt = 0; attempt < 400 && completed < 3; attempt++) {
      await new Promise((resolve) => setTimeout(resolve, 25))
      completed = (await openai.batches.retrieve(created.id)).request_counts?.completed ?? 0
    }
    expect(completed).toBeGreaterThan(0)
    await first.stop("SIGKILL")

    gateway = await GatewayProcess.start(env())
    const again = client(gateway.baseUrl)
    const partial = await again.batches.retrieve(created.id)
    expect(partial.request_counts?.completed ?? 0).toBeLessThan(LINES)
    let batch = partial
    for (let attempt = 0; attempt < 800 && batch.status !== "completed"; attempt++) {
      await new Promise((resolve) => setTimeout(resolve, 25))
      batch = await again.batches.retrieve(created.id)
    }
    expect(batch.status).toBe("completed")
    expect(batch.request_counts).toEqual({ total: LINES, completed: LINES, failed: 0 })
    const output = (await (await again.files.content(batch.output_file_id ?? "")).text()).trim().split("\n")
    expect(output.map((text) => JSON.parse(text).custom_id)).toEqual(lines.map((_, index) => `line-${index}`))
  }, 60_000)
})
