/**
 * The two ways the server serves a request (the node:http hot path of the inference routes, the
 * HttpRouter path of every other route) follow one edge: a refused request answers the same
 * status, envelope and headers on both, the trace id echoed when sent and made when not.
 */
import { Edge } from "@switchyard/server"
import { Cause, Effect, Logger, References } from "effect"
import { connect } from "node:net"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { createKey } from "./support/Admin.ts"
import * as GatewayProcess from "./support/GatewayProcess.ts"

/** One route of each path, each reading a JSON body, and the scope it needs. */
const paths = [
  { path: "/v1/chat/completions", scope: "completions" },
  { path: "/v1/configs", scope: "configs" }
] as const

/** Both paths then refuse a body at the same size (the management routes' own limit). */
const MAX_BODY = 1024 * 1024

let gateway: GatewayProcess.GatewayProcess
let lacksBoth = ""

beforeAll(async () => {
  gateway = await GatewayProcess.start({ GATEWAY_MAX_BODY: String(MAX_BODY), GATEWAY_BODY_TIMEOUT_SECONDS: "1" })
  lacksBoth = await createKey(gateway.baseUrl, ["logs.read"])
})

afterAll(() => gateway?.stop())

interface Answer {
  readonly status: number
  /** Every header but `date`, which only says when. */
  readonly headers: Record<string, string>
  readonly body: unknown
}

/** What the gateway answers, read off the wire: status line, headers and JSON body. */
const parse = (text: string): Answer => {
  const end = text.indexOf("\r\n\r\n")
  const [statusLine = "", ...lines] = text.slice(0, end).split("\r\n")
  const headers: Record<string, string> = {}
  for (const line of lines) {
    const colon = line.indexOf(":")
    const name = line.slice(0, colon).toLowerCase()
    if (name !== "date") headers[name] = line.slice(colon + 1).trim()
  }
  return { status: Number(statusLine.split(" ")[1]), headers, body: JSON.parse(text.slice(end + 4)) }
}

/**
 * Sends `head` and `body` on a raw socket (the body may be cut short: a slow client) and reads the
 * answer until its `content-length` is in, or until the gateway closes the connection.
 */
const exchange = (head: string, body: string): Promise<Answer> =>
  new Promise((resolve, reject) => {
    const socket = connect(gateway.port, "127.0.0.1", () => socket.write(head + body))
    let text = ""
    const done = () => {
      socket.destroy()
      resolve(parse(text))
    }
    socket.on("data", (data: Buffer) => {
      text += data.toString()
      const end = text.indexOf("\r\n\r\n")
      const length = /\r\ncontent-length: (\d+)/i.exec(text.slice(0, end))?.[1]
      if (end !== -1 && length !== undefined && Buffer.byteLength(text.slice(end + 4)) >= Number(length)) done()
    })
    socket.on("close", () => (text === "" ? reject(new Error("no answer")) : done()))
    socket.on("error", reject)
    socket.setTimeout(10_000, () => socket.destroy(new Error("the gateway never answered")))
  })

interface Request {
  readonly key?: string
  readonly traceId?: string
  readonly body?: string
  /** The length the request claims, when not that of `body` (a body still to come). */
  readonly contentLength?: number
  /** A body sent chunked instead, with no length announced. */
  readonly chunks?: ReadonlyArray<string>
}

const send = (path: string, request: Request): Promise<Answer> => {
  const body = request.chunks === undefined
    ? request.body ?? "{}"
    : request.chunks.map((chunk) => `${Buffer.byteLength(chunk).toString(16)}\r\n${chunk}\r\n`).join("") + "0\r\n\r\n"
  const head = [
    `POST ${path} HTTP/1.1`,
    "host: 127.0.0.1",
    "content-type: application/json",
    request.chunks === undefined
      ? `content-length: ${request.contentLength ?? Buffer.byteLength(body)}`
      : "transfer-encoding: chunked",
    ...(request.key === undefined ? [] : [`x-gateway-api-key: ${request.key}`]),
    ...(request.traceId === undefined ? [] : [`x-gateway-trace-id: ${request.traceId}`])
  ].join("\r\n")
  return exchange(`${head}\r\n\r\n`, body)
}

const CONNECTION = ["connection", "keep-alive"]

const without = (headers: Record<string, string>, names: ReadonlyArray<string>): Record<string, string> =>
  Object.fromEntries(Object.entries(headers).filter(([name]) => !names.includes(name)))

/** The same request on both paths. */
const onBothPaths = (request: Request) => Promise.all(paths.map(({ path }) => send(path, request)))

const envelope = (message: string, type: string, code: string) => ({ error: { message, type, param: null, code } })

const tooLarge = envelope(
  `request body is larger than the limit of ${MAX_BODY} bytes`,
  "invalid_request_error",
  "payload_too_large"
)

const cases: ReadonlyArray<{
  readonly name: string
  readonly request: () => Request
  readonly status: number
  readonly body: ReturnType<typeof envelope>
}> = [
  {
    name: "a missing key",
    request: () => ({}),
    status: 401,
    body: envelope("x-gateway-api-key: missing", "authentication_error", "invalid_api_key")
  },
  {
    name: "a bad key",
    request: () => ({ key: "not-a-key" }),
    status: 401,
    body: envelope("x-gateway-api-key: not a valid key", "authentication_error", "invalid_api_key")
  },
  {
    name: "a body too large",
    request: () => ({ key: GatewayProcess.ADMIN_KEY, chunks: ["{\"a\":\"", "x".repeat(MAX_BODY), "\"}"] }),
    status: 413,
    body: tooLarge
  },
  {
    name: "a body that is not JSON",
    request: () => ({ key: GatewayProcess.ADMIN_KEY, body: "{not json" }),
    status: 400,
    body: envelope("body: is not valid JSON", "invalid_request_error", "invalid_request")
  },
  {
    name: "a body slower than the limit",
    request: () => ({ key: GatewayProcess.ADMIN_KEY, body: "{\"model\":", contentLength: 100 }),
    status: 408,
    body: envelope("body: did not arrive within 1 s", "invalid_request_error", "request_timeout")
  }
]

describe("the hot path and the router path answer a refused request alike", () => {
  it.each(cases)("$name: the same status, envelope and headers, the trace id echoed", async (refusal) => {
    const traceId = `parity-${refusal.status}-${Math.random().toString(16).slice(2)}`
    const [hot, router] = await onBothPaths({ ...refusal.request(), traceId })
    expect(hot).toEqual(router)
    expect(hot?.status).toBe(refusal.status)
    expect(hot?.body).toEqual(refusal.body)
    expect(hot?.headers).toMatchObject({ "content-type": "application/json", "x-gateway-trace-id": traceId })
    // a client too slow with its body loses the connection; any other keeps it
    expect(hot?.headers.connection).toBe(refusal.status === 408 ? "close" : "keep-alive")
  })

  it("a key lacking the route's scope: 403 naming that scope, otherwise alike", async () => {
    const answers = await onBothPaths({ key: lacksBoth, traceId: "parity-scope" })
    const [hot, router] = answers.map((answer, i) => {
      const scope = paths[i]?.scope ?? ""
      expect(answer.status).toBe(403)
      expect(answer.body).toEqual(
        envelope(`this key lacks the scope "${scope}"`, "permission_error", "insufficient_scope")
      )
      // the scope's name is the only difference, in the message and so in the length
      const headers = without(answer.headers, ["content-length"])
      return { ...answer, headers, body: JSON.stringify(answer.body).replace(scope, "<scope>") }
    })
    expect(hot).toEqual(router)
    expect(hot?.headers["x-gateway-trace-id"]).toBe("parity-scope")
  })

  it("a body announced larger than the limit: 413 at once on either path, the same envelope", async () => {
    const answers = await onBothPaths({
      key: GatewayProcess.ADMIN_KEY,
      traceId: "parity-announced",
      contentLength: MAX_BODY + 1
    })
    for (const answer of answers) {
      expect(answer.status).toBe(413)
      expect(answer.body).toEqual(tooLarge)
      expect(answer.headers).toMatchObject({
        "content-type": "application/json",
        "x-gateway-trace-id": "parity-announced"
      })
    }
    // what becomes of the unread megabyte is the transport's: node drains it on the hot path, Effect's
    // platform closes the connection instead on the router path (past 256 KiB of unread body)
    const [hot, router] = answers.map((answer) => ({ ...answer, headers: without(answer.headers, CONNECTION) }))
    expect(hot).toEqual(router)
  })

  it("a request without a trace id gets a new one on either path", async () => {
    const answers = await onBothPaths({})
    for (const answer of answers) expect(answer.headers["x-gateway-trace-id"]).toMatch(/^[0-9a-f]{32}$/)
    expect(answers[0]?.headers["x-gateway-trace-id"]).not.toBe(answers[1]?.headers["x-gateway-trace-id"])
  })
})

describe("every answer carries the trace id", () => {
  it.each(["/health", "/v1/openapi.json", "/docs", "/v1/no-such-route"])("GET %s echoes it", async (path) => {
    const response = await fetch(`${gateway.baseUrl}${path}`, { headers: { "x-gateway-trace-id": "parity-open" } })
    await response.arrayBuffer()
    expect(response.headers.get("x-gateway-trace-id")).toBe("parity-open")
  })
})

describe("a defect, on either path (both answer it through Edge.failureOf)", () => {
  it("answers 500 in the envelope, logged with its cause under the trace id the answer carries", async () => {
    const logged: Array<{ readonly cause: string; readonly traceId: unknown }> = []
    const capture = Logger.make(({ cause, fiber }) => {
      logged.push({ cause: Cause.pretty(cause), traceId: fiber.getRef(References.CurrentLogAnnotations).trace_id })
    })
    const failure = await Effect.runPromise(
      Edge.failureOf(Cause.die(new Error("a bug")), "parity-defect").pipe(Effect.provide(Logger.layer([capture])))
    )
    expect(failure.status).toBe(500)
    expect(failure.headers).toEqual({ "x-gateway-trace-id": "parity-defect" })
    expect(JSON.parse(failure.body)).toEqual(envelope("internal error", "server_error", "internal_error"))
    expect(logged).toHaveLength(1)
    expect(logged[0]?.cause).toContain("a bug")
    expect(logged[0]?.traceId).toBe("parity-defect")
  })
})
