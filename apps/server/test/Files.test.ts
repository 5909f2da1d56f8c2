import { execFileSync } from "node:child_process"
import { randomBytes } from "node:crypto"
import { readdir } from "node:fs/promises"
import { join } from "node:path"
import OpenAI, { toFile } from "openai"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { call, createKey } from "./support/Admin.ts"
import * as GatewayProcess from "./support/GatewayProcess.ts"

/** Small enough that a test can pass it; large enough for every other upload here. */
const MAX_FILE_BYTES = 4096

const LINES = [
  { custom_id: "a", method: "POST", url: "/v1/chat/completions", body: { model: "gpt-4o-mini", messages: [] } },
  { custom_id: "b", method: "POST", url: "/v1/chat/completions", body: { model: "gpt-4o-mini", messages: [] } }
].map((line) => JSON.stringify(line)).join("\n") + "\n"

const client = (baseUrl: string, key = GatewayProcess.ADMIN_KEY) =>
  new OpenAI({
    apiKey: "unused",
    baseURL: `${baseUrl}/v1`,
    defaultHeaders: { "x-gateway-api-key": key },
    maxRetries: 0
  })

/** A multipart upload as any HTTP client sends it; `parts` in the order given. */
const upload = async (
  baseUrl: string,
  parts: ReadonlyArray<readonly [name: string, value: string | Blob, filename?: string]>,
  key = GatewayProcess.ADMIN_KEY
) => {
  const form = new FormData()
  for (const [name, value, filename] of parts) {
    if (typeof value === "string") form.append(name, value)
    else form.append(name, value, filename)
  }
  const response = await fetch(`${baseUrl}/v1/files`, {
    method: "POST",
    headers: { "x-gateway-api-key": key },
    body: form
  })
  const text = await response.text()
  return { status: response.status, text, body: JSON.parse(text) }
}

const jsonl = (text: string, type = "application/jsonl") => new Blob([text], { type })

describe("files over HTTP (embedded default: contents on disk under the data dir)", () => {
  let gateway: GatewayProcess.GatewayProcess
  beforeAll(async () => {
    gateway = await GatewayProcess.start({ GATEWAY_MAX_FILE_BYTES: String(MAX_FILE_BYTES) })
  }, 30_000)
  afterAll(() => gateway?.stop())

  it("uploads, gets, lists, reads and deletes a file with the openai client", async () => {
    const openai = client(gateway.baseUrl)
    const file = await openai.files.create({ file: await toFile(Buffer.from(LINES), "input.jsonl"), purpose: "batch" })
    expect(file).toMatchObject({
      object: "file",
      bytes: Buffer.byteLength(LINES),
      filename: "input.jsonl",
      purpose: "batch",
      status: "processed"
    })
    expect(file.id).toMatch(/^file-/)
    expect(await openai.files.retrieve(file.id)).toEqual(file)
    expect((await openai.files.list({ purpose: "batch" })).data.map((listed) => listed.id)).toContain(file.id)
    expect(await (await openai.files.content(file.id)).text()).toBe(LINES)
    expect(await readdir(join(gateway.dataDir, "files"))).toContain(file.id)
    expect(await openai.files.delete(file.id)).toEqual({ id: file.id, object: "file", deleted: true })
    expect(await readdir(join(gateway.dataDir, "files"))).not.toContain(file.id)
    await expect(openai.files.retrieve(file.id)).rejects.toMatchObject({ status: 404 })
  })

  it("takes the purpose after the file, and a part sent as application/json as the file", async () => {
    const answer = await upload(gateway.baseUrl, [["file", jsonl("{\"a\":1}\n", "application/json"), "x.jsonl"], [
      "purpose",
      "batch"
    ]])
    expect(answer.status, answer.text).toBe(200)
    expect(answer.body).toMatchObject({ bytes: 8, filename: "x.jsonl", purpose: "batch" })
  })

  it("answers 400 naming purpose when it is missing or not batch", async () => {
    const missing = await upload(gateway.baseUrl, [["file", jsonl(LINES), "in.jsonl"]])
    expect([missing.status, missing.body.error.param]).toEqual([400, "purpose"])
    const wrong = await upload(gateway.baseUrl, [["purpose", "fine-tune"], ["file", jsonl(LINES), "in.jsonl"]])
    expect([wrong.status, wrong.body.error.param, wrong.body.error.message]).toEqual([
      400,
      "purpose",
      "purpose: must be batch (got \"fine-tune\")"
    ])
  })

  it("answers 400 naming file when the body is not multipart or has no file", async () => {
    const json = await call(gateway.baseUrl, "POST", "/v1/files", { body: { purpose: "batch" } })
    expect([json.status, json.body.error.param]).toEqual([400, "file"])
    expect(json.body.error.message).toMatch(/^body: must be multipart\/form-data/)
    const noFile = await upload(gateway.baseUrl, [["purpose", "batch"]])
    expect([noFile.status, noFile.body.error.message]).toEqual([
      400,
      "file: missing (a multipart file part named file)"
    ])
    const twice = await upload(gateway.baseUrl, [["purpose", "batch"], ["file", jsonl(LINES), "a.jsonl"], [
      "file",
      jsonl(LINES),
      "b.jsonl"
    ]])
    expect([twice.status, twice.body.error.message]).toEqual([400, "file: only one file per upload"])
  })

  it("answers 400 for batch input that is empty or not JSONL, naming the line", async () => {
    const empty = await upload(gateway.baseUrl, [["purpose", "batch"], ["file", jsonl(""), "empty.jsonl"]])
    expect([empty.status, empty.body.error.param, empty.body.error.message]).toEqual([400, "file", "file: is empty"])
    const notJsonl = await upload(gateway.baseUrl, [["purpose", "batch"], [
      "file",
      jsonl("not json\n[1]\n"),
      "bad.jsonl"
    ]])
    expect([notJsonl.status, notJsonl.body.error.param]).toEqual([400, "file"])
    expect(notJsonl.body.error.message).toMatch(/^file: no line is a JSON object, line 1 the first/)
  })

  it("answers 413 past GATEWAY_MAX_FILE_BYTES and keeps nothing", async () => {
    const before = await readdir(join(gateway.dataDir, "files")).catch(() => [])
    const big = `${JSON.stringify({ pad: "x".repeat(MAX_FILE_BYTES) })}\n`
    const answer = await upload(gateway.baseUrl, [["purpose", "batch"], ["file", jsonl(big), "big.jsonl"]])
    expect([answer.status, answer.body.error.code]).toEqual([413, "payload_too_large"])
    expect(await readdir(join(gateway.dataDir, "files"))).toEqual(before)
    const listed = await call(gateway.baseUrl, "GET", "/v1/files?limit=100")
    expect(listed.body.data.map((file: { filename: string }) => file.filename)).not.toContain("big.jsonl")
  })

  it("keeps workspaces apart and needs the files scope", async () => {
    const mine = await upload(gateway.baseUrl, [["purpose", "batch"], ["file", jsonl(LINES), "mine.jsonl"]])
    const other = await createKey(gateway.baseUrl, ["files"], { workspace: "other-files-workspace" })
    for (const path of [`/v1/files/${mine.body.id}`, `/v1/files/${mine.body.id}/content`]) {
      expect((await call(gateway.baseUrl, "GET", path, { key: other })).status).toBe(404)
    }
    expect((await call(gateway.baseUrl, "DELETE", `/v1/files/${mine.body.id}`, { key: other })).status).toBe(404)
    expect((await call(gateway.baseUrl, "GET", "/v1/files", { key: other })).body.data).toEqual([])
    const noScope = await createKey(gateway.baseUrl, ["completions"])
    expect((await call(gateway.baseUrl, "GET", "/v1/files", { key: noScope })).status).toBe(403)
    const refused = await upload(gateway.baseUrl, [["purpose", "batch"], ["file", jsonl(LINES), "x.jsonl"]], noScope)
    expect(refused.status).toBe(403)
  })

  it("lists with limit, order, after and purpose, and refuses a bad bound naming it", async () => {
    const ids: Array<string> = []
    for (const name of ["p1", "p2", "p3"]) {
      ids.push((await upload(gateway.baseUrl, [["purpose", "batch"], ["file", jsonl(LINES), name]])).body.id)
    }
    const page = await call(gateway.baseUrl, "GET", "/v1/files?limit=2")
    expect([page.body.data.map((file: { id: string }) => file.id), page.body.has_more]).toEqual([
      [ids[2], ids[1]],
      true
    ])
    const next = await call(gateway.baseUrl, "GET", `/v1/files?limit=2&order=asc&after=${ids[0]}`)
    expect(next.body.data.map((file: { id: string }) => file.id)).toEqual([ids[1], ids[2]])
    expect((await call(gateway.baseUrl, "GET", "/v1/files?purpose=batch_output")).body.data).toEqual([])
    const bad = await call(gateway.baseUrl, "GET", "/v1/files?limit=101")
    expect([bad.status, bad.body.error.param]).toEqual([400, "limit"])
    const badPurpose = await call(gateway.baseUrl, "GET", "/v1/files?purpose=fine-tune")
    expect([badPurpose.status, badPurpose.body.error.param]).toEqual([400, "purpose"])
  })
})

describe("files on Postgres, shared by two replicas", () => {
  const database = `switchyard_files_${randomBytes(4).toString("hex")}`
  const psql = (sql: string) => execFileSync("psql", ["-h", "127.0.0.1", "-U", "postgres", "-d", "test", "-c", sql])
  const env = {
    DATABASE_URL: `postgres://postgres@127.0.0.1:5432/${database}`,
    GATEWAY_SECRET: randomBytes(32).toString("base64")
  }
  let first: GatewayProcess.GatewayProcess
  let second: GatewayProcess.GatewayProcess
  beforeAll(async () => {
    psql(`CREATE DATABASE ${database}`)
    first = await GatewayProcess.start(env)
    second = await GatewayProcess.start(env)
  }, 60_000)
  afterAll(async () => {
    await first?.stop()
    await second?.stop()
    psql(`DROP DATABASE IF EXISTS ${database} WITH (FORCE)`)
  })

  it("reads on one replica, from the database, the bytes uploaded to the other", async () => {
    const content = LINES.repeat(40)
    const file = await client(first.baseUrl).files.create({
      file: await toFile(Buffer.from(content), "shared.jsonl"),
      purpose: "batch"
    })
    expect(await readdir(first.dataDir)).not.toContain("files")
    expect(await (await client(second.baseUrl).files.content(file.id)).text()).toBe(content)
    await client(second.baseUrl).files.delete(file.id)
    await expect(client(first.baseUrl).files.content(file.id)).rejects.toMatchObject({ status: 404 })
  })
})
