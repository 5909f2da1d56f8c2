import { Behaviour } from "@switchyard/fake-providers"
import OpenAI, { toFile } from "openai"
import { describe, expect, it } from "vitest"
import { call, createKey } from "./support/Admin.ts"
import { useGatewayAndFake } from "./support/Fixtures.ts"
import * as GatewayProcess from "./support/GatewayProcess.ts"
import { tokenBudget, twentyTokens } from "./support/Usage.ts"

const harness = useGatewayAndFake()
const base = () => harness.gateway.baseUrl

/** The official client, selecting the OpenAI fake for the batches it creates. */
const client = (key = GatewayProcess.ADMIN_KEY) =>
  new OpenAI({
    apiKey: "sk-upstream",
    baseURL: `${base()}/v1`,
    defaultHeaders: {
      "x-gateway-api-key": key,
      "x-gateway-provider": "openai",
      "x-gateway-custom-host": harness.fake.baseUrl
    },
    maxRetries: 0
  })

const line = (customId: string, content: string) =>
  JSON.stringify({
    custom_id: customId,
    method: "POST",
    url: "/v1/chat/completions",
    body: { model: "gpt-4o-mini", messages: [{ role: "user", content }] }
  })

const upload = async (openai: OpenAI, lines: ReadonlyArray<string>) =>
  openai.files.create({ file: await toFile(Buffer.from(`${lines.join("\n")}\n`), "input.jsonl"), purpose: "batch" })

/** Polls the batch until it has ended, as a client would. */
const settled = async (openai: OpenAI, id: string) => {
  for (let attempt = 0; attempt < 400; attempt++) {
    const batch = await openai.batches.retrieve(id)
    if (["completed", "failed", "cancelled", "expired"].includes(batch.status)) return batch
    await new Promise((resolve) => setTimeout(resolve, 25))
  }
  throw new Error(`batch ${id} did not end`)
}

const linesOf = async (openai: OpenAI, fileId: string | null | undefined) =>
  fileId === null || fileId === undefined
    ? []
    : (await (await openai.files.content(fileId)).text()).trim().split("\n").map((text) => JSON.parse(text))

describe("batches over HTTP with the openai client (worker inside the server)", () => {
  it("runs a batch to completed with output and error files, request counts and per-line errors", async () => {
    const openai = client()
    const input = await upload(openai, [line("a", "one"), "{\"custom_id\":\"bad\"}", line("b", "two")])
    const created = await openai.batches.create({
      input_file_id: input.id,
      endpoint: "/v1/chat/completions",
      completion_window: "24h",
      metadata: { team: "search" }
    })
    expect(created).toMatchObject({ object: "batch", status: "validating", metadata: { team: "search" } })
    expect(created.expires_at).toBe(created.created_at + 86_400)
    const batch = await settled(openai, created.id)
    expect(batch.status).toBe("completed")
    expect(batch.request_counts).toEqual({ total: 3, completed: 2, failed: 1 })
    expect(batch.errors?.data).toEqual([
      { code: "invalid_method", message: "line 2: method must be POST", param: "method", line: 2 }
    ])
    const output = await linesOf(openai, batch.output_file_id)
    expect(output.map((entry) => [entry.custom_id, entry.response.status_code])).toEqual([["a", 200], ["b", 200]])
    expect((await linesOf(openai, batch.error_file_id)).map((entry) => entry.custom_id)).toEqual(["bad"])
    // every valid line reached the provider once, with the batch's key
    const sent = harness.fake.requests.filter((request) => request.path === "/v1/chat/completions")
    expect(sent.length).toBe(2)
    expect(sent.every((request) => request.headers.authorization === "Bearer sk-upstream")).toBe(true)
    expect((await openai.batches.list({ limit: 100 })).data.map((listed) => listed.id)).toContain(batch.id)
  })

  it("answers 400 without a provider, for an unknown file, and naming the field of a bad body", async () => {
    const noProvider = await call(base(), "POST", "/v1/batches", {
      body: { input_file_id: "file-x", endpoint: "/v1/chat/completions", completion_window: "immediate" }
    })
    expect([noProvider.status, noProvider.body.error.param]).toEqual([400, "x-gateway-provider"])
    const headers = { "x-gateway-provider": "openai", authorization: "Bearer sk" }
    const unknown = await call(base(), "POST", "/v1/batches", {
      headers,
      body: { input_file_id: "file-x", endpoint: "/v1/chat/completions", completion_window: "immediate" }
    })
    expect([unknown.status, unknown.body.error.param]).toEqual([400, "input_file_id"])
    const window = await call(base(), "POST", "/v1/batches", {
      headers,
      body: { input_file_id: "file-x", endpoint: "/v1/chat/completions", completion_window: "1h" }
    })
    expect([window.status, window.body.error.param]).toEqual([400, "completion_window"])
    const endpoint = await call(base(), "POST", "/v1/batches", {
      headers,
      body: { input_file_id: "file-x", endpoint: "/v1/responses", completion_window: "24h" }
    })
    expect([endpoint.status, endpoint.body.error.param]).toEqual([400, "endpoint"])
    const metadata = Object.fromEntries(Array.from({ length: 17 }, (_, index) => [`k${index}`, "v"]))
    const tooMany = await call(base(), "POST", "/v1/batches", {
      headers,
      body: { input_file_id: "file-x", endpoint: "/v1/chat/completions", completion_window: "24h", metadata }
    })
    expect([tooMany.status, tooMany.body.error.param]).toEqual([400, "metadata"])
  })

  it("fails a batch with no valid line", async () => {
    const openai = client()
    const input = await upload(openai, ["{\"custom_id\":\"a\",\"method\":\"GET\"}"])
    const created = await openai.batches.create({
      input_file_id: input.id,
      endpoint: "/v1/chat/completions",
      completion_window: "24h"
    })
    const batch = await settled(openai, created.id)
    expect([batch.status, batch.request_counts?.failed]).toEqual(["failed", 1])
  })

  it("records a provider failure as the line's error and still completes", async () => {
    harness.fake.setDefault(Behaviour.json(500, { error: { message: "upstream broke", type: "server_error" } }))
    const openai = client()
    const input = await upload(openai, [line("x", "boom")])
    const created = await openai.batches.create({
      input_file_id: input.id,
      endpoint: "/v1/chat/completions",
      completion_window: "24h"
    })
    const batch = await settled(openai, created.id)
    expect([batch.status, batch.request_counts]).toEqual(["completed", { total: 1, completed: 0, failed: 1 }])
    const [error] = await linesOf(openai, batch.error_file_id)
    expect(error.response.status_code).toBe(500)
  })

  it("counts lines against the creator's usage limits: an exhausted budget fails every line with 412", async () => {
    const created = await call(base(), "POST", "/v1/api-keys", {
      body: { name: "batch budget", scopes: ["batches", "files", "completions"] }
    })
    const keyId = String(created.body.id)
    const key = String(created.body.key)
    const policy = await call(base(), "POST", "/v1/policies/usage-limits", {
      body: tokenBudget(keyId, 20, "batch budget")
    })
    expect(policy.status, policy.text).toBe(200)
    harness.fake.setDefault(twentyTokens)
    const openai = client(key)
    // a live request by the same key spends the whole budget
    await openai.chat.completions.create({ model: "gpt-4o-mini", messages: [{ role: "user", content: "hi" }] })
    const input = await upload(openai, [line("a", "1"), line("b", "2")])
    const batch = await settled(
      openai,
      (await openai.batches.create({
        input_file_id: input.id,
        endpoint: "/v1/chat/completions",
        completion_window: "24h"
      }))
        .id
    )
    expect([batch.status, batch.request_counts]).toEqual(["completed", { total: 2, completed: 0, failed: 2 }])
    const errors = await linesOf(openai, batch.error_file_id)
    expect(errors.map((entry) => entry.response.status_code)).toEqual([412, 412])
    expect(harness.fake.requests.filter((request) => request.path === "/v1/chat/completions").length).toBe(1)
  })

  it("cancels a batch, keeps workspaces apart and needs the batches scope", async () => {
    harness.fake.setDefault(Behaviour.delay(300, Behaviour.reply()))
    const openai = client()
    const input = await upload(openai, [line("slow", "1"), line("slower", "2")])
    const created = await openai.batches.create({
      input_file_id: input.id,
      endpoint: "/v1/chat/completions",
      completion_window: "24h"
    })
    const cancelling = await openai.batches.cancel(created.id)
    expect(cancelling.status).toBe("cancelling")
    expect((await settled(openai, created.id)).status).toBe("cancelled")
    const other = await createKey(base(), ["batches"], { workspace: "other-batches-workspace" })
    expect((await call(base(), "GET", `/v1/batches/${created.id}`, { key: other })).status).toBe(404)
    const noScope = await createKey(base(), ["files"])
    expect((await call(base(), "GET", "/v1/batches", { key: noScope })).status).toBe(403)
  })
})
