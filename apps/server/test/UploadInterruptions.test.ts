/**
 * Uploads that never finish: a client that stalls mid-upload gets 408 within
 * GATEWAY_BODY_TIMEOUT_SECONDS and what was written of its file is removed; a server killed with
 * SIGKILL mid-upload leaves bytes that the next start (SQLite: the only writer) or the sweep
 * (Postgres: another replica may be uploading; OrphanSweep.test drives it with the test clock)
 * removes. On disk with the embedded SQLite, and in file_chunks on Postgres.
 */
import { execFileSync } from "node:child_process"
import { randomBytes } from "node:crypto"
import { readdir } from "node:fs/promises"
import { connect, type Socket } from "node:net"
import { join } from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { call } from "./support/Admin.ts"
import * as GatewayProcess from "./support/GatewayProcess.ts"

const BOUNDARY = "switchyard-upload-test"
const LINE = "{\"custom_id\":\"x\",\"method\":\"POST\",\"url\":\"/v1/chat/completions\",\"body\":{}}\n"

/**
 * Sends the start of a multipart upload of `sentBytes` of JSONL, announcing ten times more, and
 * then nothing: answers the socket and what the gateway answers before it closes the connection.
 */
const stalledUpload = (port: number, sentBytes: number) => {
  const content = LINE.repeat(Math.ceil(sentBytes / LINE.length)).slice(0, sentBytes)
  const head = `--${BOUNDARY}\r\ncontent-disposition: form-data; name="purpose"\r\n\r\nbatch\r\n` +
    `--${BOUNDARY}\r\ncontent-disposition: form-data; name="file"; filename="big.jsonl"\r\n` +
    "content-type: application/jsonl\r\n\r\n"
  let socket: Socket | undefined
  const answered = new Promise<{ readonly text: string; readonly ms: number }>((resolve, reject) => {
    const started = Date.now()
    socket = connect(port, "127.0.0.1", () =>
      socket?.write(
        `POST /v1/files HTTP/1.1\r\nhost: x\r\nx-gateway-api-key: ${GatewayProcess.ADMIN_KEY}\r\n` +
          `content-type: multipart/form-data; boundary=${BOUNDARY}\r\ncontent-length: ${sentBytes * 10}\r\n\r\n` +
          head + content
      ))
    let text = ""
    socket.on("data", (data: Buffer) => (text += data.toString()))
    socket.on("close", () => resolve({ text, ms: Date.now() - started }))
    socket.on("error", reject)
  })
  return { answered, destroy: () => socket?.destroy() }
}

const until = async (what: string, check: () => Promise<boolean>) => {
  for (let attempt = 0; attempt < 400; attempt++) {
    if (await check()) return
    await new Promise((resolve) => setTimeout(resolve, 25))
  }
  throw new Error(`never: ${what}`)
}

const bodyOf = (text: string): unknown => JSON.parse(text.slice(text.indexOf("\r\n\r\n") + 4))
const filesIn = (gateway: GatewayProcess.GatewayProcess) =>
  readdir(join(gateway.dataDir, "files")).catch(() => [] as Array<string>)

describe("an upload that stops (embedded SQLite: contents on disk)", () => {
  it("a stalled client gets 408 after the body timeout and the partial file is removed", async () => {
    const gateway = await GatewayProcess.start({ GATEWAY_BODY_TIMEOUT_SECONDS: "2" })
    try {
      const upload = stalledUpload(gateway.port, 256 * 1024)
      // it was being written: a .partial file exists before the timeout
      await until("a .partial file", async () => (await filesIn(gateway)).some((name) => name.endsWith(".partial")))
      const { text, ms } = await upload.answered
      expect(text).toMatch(/^HTTP\/1\.1 408 /)
      expect(bodyOf(text)).toMatchObject({
        error: { message: "body: did not arrive within 2 s", code: "request_timeout" }
      })
      expect(ms).toBeLessThan(6_000)
      expect(await filesIn(gateway)).toEqual([])
      expect((await call(gateway.baseUrl, "GET", "/v1/files")).body.data).toEqual([])
    } finally {
      await gateway.stop()
    }
  }, 30_000)

  it("a server killed mid-upload leaves a .partial file that the next start removes", async () => {
    const killed = await GatewayProcess.start()
    const upload = stalledUpload(killed.port, 256 * 1024)
    // the kill resets the connection (or the destroy below closes it first): either way no answer
    // is looked at, and a reset must not surface as an unhandled rejection
    upload.answered.catch(() => undefined)
    await until("a .partial file", async () => (await filesIn(killed)).some((name) => name.endsWith(".partial")))
    await killed.stop("SIGKILL")
    upload.destroy()
    expect((await filesIn(killed)).filter((name) => name.endsWith(".partial"))).toHaveLength(1)
    const restarted = await GatewayProcess.start({ GATEWAY_DATA_DIR: killed.dataDir })
    try {
      expect(await filesIn(restarted)).toEqual([])
    } finally {
      await restarted.stop()
    }
  }, 60_000)
})

describe("an upload that stops (Postgres: contents in file_chunks)", () => {
  const database = `switchyard_uploads_${randomBytes(4).toString("hex")}`
  const psql = (sql: string, db = "test") =>
    execFileSync("psql", ["-h", "127.0.0.1", "-U", "postgres", "-d", db, "-tAc", sql]).toString().trim()
  const chunkRows = () => Number(psql("SELECT COUNT(*) FROM file_chunks", database))
  const env = {
    DATABASE_URL: `postgres://postgres@127.0.0.1:5432/${database}`,
    GATEWAY_SECRET: randomBytes(32).toString("base64")
  }
  beforeAll(() => {
    psql(`CREATE DATABASE ${database}`)
  })
  afterAll(() => {
    psql(`DROP DATABASE IF EXISTS ${database} WITH (FORCE)`)
  })

  it("a stalled client gets 408 and the rows written of its file are removed", async () => {
    const gateway = await GatewayProcess.start({ ...env, GATEWAY_BODY_TIMEOUT_SECONDS: "2" })
    try {
      // past one 1 MiB row, so a row is written before the client stalls
      const upload = stalledUpload(gateway.port, 1536 * 1024)
      await until("a file_chunks row", async () => chunkRows() > 0)
      const { text } = await upload.answered
      expect(text).toMatch(/^HTTP\/1\.1 408 /)
      expect(chunkRows()).toBe(0)
    } finally {
      await gateway.stop()
    }
  }, 30_000)

  it("a server killed mid-upload leaves rows that a start keeps (another replica may be uploading)", async () => {
    const killed = await GatewayProcess.start(env)
    const upload = stalledUpload(killed.port, 1536 * 1024)
    // as above: the answer of a killed server is not looked at
    upload.answered.catch(() => undefined)
    await until("a file_chunks row", async () => chunkRows() > 0)
    await killed.stop("SIGKILL")
    upload.destroy()
    const restarted = await GatewayProcess.start(env)
    try {
      // the sweep removes them once two passes 15 minutes apart found them without a file
      expect(chunkRows()).toBeGreaterThan(0)
    } finally {
      await restarted.stop()
    }
  }, 60_000)
})
