/**
 * The server's logs as an operator reads them (extensions.md, "Running it", logs): one line per
 * event on stdout, JSON or pretty, an access line per request on both paths, a 5xx with its
 * cause, the level respected, and never a key, a secret or a body.
 */
import { Behaviour, FakeOpenAI } from "@switchyard/fake-providers"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import * as GatewayProcess from "./support/GatewayProcess.ts"

const UPSTREAM_KEY = "sk-upstream-secret-0f3c9a"
const BODY_TEXT = "confidential-prompt-7d1e"

interface Line {
  readonly time: string
  readonly level: string
  readonly msg: string
  readonly [field: string]: unknown
}

let fake: FakeOpenAI.FakeOpenAI

beforeAll(async () => {
  fake = await FakeOpenAI.start()
})
afterAll(() => fake.close())

const chat = (gateway: GatewayProcess.GatewayProcess, apiKey = GatewayProcess.ADMIN_KEY) =>
  fetch(`${gateway.baseUrl}/v1/chat/completions?debug=${UPSTREAM_KEY}`, {
    method: "POST",
    headers: {
      "content-type": "application/json",
      "x-gateway-api-key": apiKey,
      "x-gateway-provider": "openai",
      "x-gateway-custom-host": fake.baseUrl,
      authorization: `Bearer ${UPSTREAM_KEY}`
    },
    body: JSON.stringify({ model: "gpt-4o-mini", messages: [{ role: "user", content: BODY_TEXT }] })
  })

/** The lines printed so far, once `count` of them satisfy `found` (lines are written a batch per event-loop turn). */
const linesOnceSeen = async (
  gateway: GatewayProcess.GatewayProcess,
  found: (line: Line) => boolean,
  count = 1
): Promise<Array<Line>> => {
  const deadline = Date.now() + 5_000
  for (;;) {
    const lines = jsonLines(gateway.output())
    if (lines.filter(found).length >= count) return lines
    if (Date.now() > deadline) throw new Error(`no such line yet:\n${gateway.output()}`)
    await new Promise((resolve) => setTimeout(resolve, 20))
  }
}

/** Every line of the output after the start-up notice of the admin key, each a JSON object. */
const jsonLines = (output: string): Array<Line> =>
  output.split("\n").filter((line) => line.startsWith("{")).map((line) => JSON.parse(line) as Line)

describe("logs in JSON", () => {
  let gateway: GatewayProcess.GatewayProcess
  beforeAll(async () => {
    gateway = await GatewayProcess.start({ GATEWAY_LOG_FORMAT: "json", GATEWAY_LOG_LEVEL: undefined })
  })
  afterAll(() => gateway.stop())

  it("writes every line of the output as one JSON object with time, level and message", async () => {
    await linesOnceSeen(gateway, (line) => line.msg.startsWith("Switchyard listening on http://127.0.0.1:"))
    const printed = gateway.output().split("\n").filter((line) => line !== "")
    // the admin key notice, printed once before the server listens, is the only text that is not a log event
    const events = printed.filter((line) => line.startsWith("{"))
    expect(events.length).toBeGreaterThan(0)
    for (const line of events) {
      const event = JSON.parse(line) as Line
      expect(Number.isNaN(Date.parse(event.time))).toBe(false)
      expect(["debug", "info", "warn", "error"]).toContain(event.level)
    }
  })

  it("writes one access line per inference request with what the gateway learned", async () => {
    const response = await chat(gateway)
    expect(response.status).toBe(200)
    const traceId = response.headers.get("x-gateway-trace-id")
    const lines = await linesOnceSeen(gateway, (line) => line.trace_id === traceId)
    const access = lines.filter((line) => line.trace_id === traceId)
    expect(access).toHaveLength(1)
    expect(access[0]).toMatchObject({
      level: "info",
      msg: "request",
      method: "POST",
      path: "/v1/chat/completions",
      status: 200,
      trace_id: traceId,
      provider: "openai",
      model: "gpt-4o-mini",
      retry_attempts: 0,
      api_key_id: expect.any(String),
      workspace_id: expect.any(String)
    })
    expect(access[0]?.duration_ms).toBeTypeOf("number")
  })

  it("writes the access line of a management route, a refused request and an unknown path", async () => {
    const answers = await Promise.all([
      fetch(`${gateway.baseUrl}/v1/api-keys`, { headers: { "x-gateway-api-key": GatewayProcess.ADMIN_KEY } }),
      chat(gateway, "sy-not-a-key-9b2f"),
      fetch(`${gateway.baseUrl}/v1/nowhere`)
    ])
    const traceIds = answers.map((answer) => answer.headers.get("x-gateway-trace-id"))
    expect(answers.map((answer) => answer.status)).toEqual([200, 401, 404])
    const lines = await linesOnceSeen(
      gateway,
      (line) => line.msg === "request" && traceIds.includes(line.trace_id as string),
      3
    )
    const byTrace = (traceId: string | null) =>
      lines.find((line) => line.msg === "request" && line.trace_id === traceId)
    expect(byTrace(traceIds[0] ?? null)).toMatchObject({ method: "GET", path: "/v1/api-keys", status: 200 })
    expect(byTrace(traceIds[1] ?? null)).toMatchObject({ method: "POST", path: "/v1/chat/completions", status: 401 })
    expect(byTrace(traceIds[2] ?? null)).toMatchObject({ method: "GET", path: "/v1/nowhere", status: 404 })
  })

  it("logs a request answered 5xx at error with its cause and trace id", async () => {
    fake.enqueue(Behaviour.resetConnection())
    const response = await chat(gateway)
    expect(response.status).toBe(502)
    const traceId = response.headers.get("x-gateway-trace-id")
    const lines = await linesOnceSeen(gateway, (line) => line.trace_id === traceId, 2)
    const failure = lines.find((line) => line.trace_id === traceId && line.level === "error")
    expect(failure?.msg).toBe("request failed")
    expect(failure?.cause).toMatch(/UpstreamUnreachable: other side closed/)
    expect(lines.find((line) => line.trace_id === traceId && line.msg === "request")).toMatchObject({ status: 502 })
  })

  it("never writes a key, the upstream credential, the query string or the body", async () => {
    await chat(gateway)
    const output = gateway.output()
    // the admin key is printed once at start-up only when the server made it; here it was given
    expect(output).not.toContain(GatewayProcess.ADMIN_KEY)
    expect(output).not.toContain("sy-not-a-key-9b2f")
    expect(output).not.toContain(UPSTREAM_KEY)
    expect(output).not.toContain(BODY_TEXT)
  })
})

describe("log level and format", () => {
  it("from warn up writes no access lines but still the 5xx with its cause", async () => {
    const gateway = await GatewayProcess.start({ GATEWAY_LOG_FORMAT: "json", GATEWAY_LOG_LEVEL: "warn" })
    try {
      expect((await chat(gateway)).status).toBe(200)
      fake.enqueue(Behaviour.resetConnection())
      const failed = await chat(gateway)
      expect(failed.status).toBe(502)
      const traceId = failed.headers.get("x-gateway-trace-id")
      const lines = await linesOnceSeen(gateway, (line) => line.trace_id === traceId)
      expect(lines.filter((line) => line.level === "info" || line.level === "debug")).toEqual([])
      expect(lines.find((line) => line.trace_id === traceId)).toMatchObject({ level: "error", msg: "request failed" })
    } finally {
      await gateway.stop()
    }
  })

  it("writes pretty lines when asked: time, level, message and fields", async () => {
    const gateway = await GatewayProcess.start({ GATEWAY_LOG_FORMAT: "pretty" })
    try {
      const response = await chat(gateway)
      const traceId = response.headers.get("x-gateway-trace-id") ?? ""
      const deadline = Date.now() + 5_000
      while (!gateway.output().includes(`trace_id=${traceId}`) && Date.now() < deadline) {
        await new Promise((resolve) => setTimeout(resolve, 20))
      }
      const line = gateway.output().split("\n").find((text) => text.includes(`trace_id=${traceId}`))
      expect(line).toMatch(
        /^\d{4}-\d\d-\d\dT[\d:.]+Z INFO {2}request method=POST path=\/v1\/chat\/completions status=200 duration_ms=[\d.]+ trace_id=/
      )
      expect(line).toContain("provider=openai model=gpt-4o-mini")
    } finally {
      await gateway.stop()
    }
  })

  it("keeps serving when whatever read its stdout goes away", async () => {
    const gateway = await GatewayProcess.start({ GATEWAY_LOG_FORMAT: "json" })
    try {
      // the read end of the pipe closes: every later write of a log line fails with EPIPE
      gateway.child.stdout?.destroy()
      for (let round = 0; round < 20; round++) expect((await chat(gateway)).status).toBe(200)
      expect((await fetch(`${gateway.baseUrl}/health`)).status).toBe(200)
      expect(gateway.child.exitCode).toBeNull()
    } finally {
      await gateway.stop()
    }
  })

  it.each([
    ["GATEWAY_LOG_FORMAT", "xml"],
    ["GATEWAY_LOG_LEVEL", "verbose"]
  ])("refuses to start with %s=%s, naming the variable", async (name, value) => {
    await expect(GatewayProcess.start({ [name]: value })).rejects.toThrow(name)
  })
})
