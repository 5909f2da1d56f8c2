import { createServer, type IncomingHttpHeaders, type RequestListener } from "node:http"
import type { AddressInfo } from "node:net"
import { afterEach, expect, it } from "vitest"
import { driveWrk, parseWrkSummary, wrkInstalled } from "../src/WrkRun.ts"

const servers: Array<ReturnType<typeof createServer>> = []
afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => new Promise((resolve) => server.close(resolve))))
})

const listen = async (listener: RequestListener): Promise<string> => {
  const server = createServer(listener)
  servers.push(server)
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1/chat/completions`
}

const requireWrk = async () => {
  if (!(await wrkInstalled())) throw new Error("no wrk on the PATH: apt-get install wrk (as .ci/run does)")
}

interface Received {
  readonly method: string | undefined
  readonly headers: IncomingHttpHeaders
  readonly body: string
}

it("sends the body and headers byte for byte and counts every answer", { timeout: 15_000 }, async () => {
  await requireWrk()
  // quotes, backslashes, line ends, a digit after a control character, brackets that would close a
  // Lua long string, and characters of two, three and four UTF-8 bytes
  const body = JSON.stringify({ text: "a \"q\" \\ b" }) + "\r\n\n5\t]]]=]" + "é€😀" + "\u0001\u007f"
  const received: Array<Received> = []
  const url = await listen((request, response) => {
    const chunks: Array<Buffer> = []
    request.on("data", (chunk: Buffer) => chunks.push(chunk))
    request.on("end", () => {
      received.push({ method: request.method, headers: request.headers, body: Buffer.concat(chunks).toString("utf8") })
      response.writeHead(200, { "content-type": "application/json" }).end("{}")
    })
  })
  const headers = { "content-type": "application/json", "x-quoted": "say \"hi\" \\ there" }
  const result = await driveWrk({ name: "echo", url, headers, pid: null }, body, 2, 1)
  expect(received.length).toBeGreaterThan(0)
  for (const request of received) {
    expect(request).toMatchObject({ method: "POST", body, headers: { "x-quoted": headers["x-quoted"] } })
  }
  // wrk counts the answers it read; the server may have answered a few more as the run stopped
  expect(result.responses).toBeGreaterThan(0)
  expect(result.responses).toBeLessThanOrEqual(received.length)
  expect(result).toMatchObject({ non2xx: 0, errors: 0, timeouts: 0 })
  expect(result.requestsPerSecond).toBeCloseTo(result.responses / result.durationSeconds, 6)
  expect(result.latencyMs.p50).toBeGreaterThan(0)
  expect(result.latencyMs.p99).toBeGreaterThanOrEqual(result.latencyMs.p50)
  // wrk's own CPU, read from this process's ended children
  expect(result.generatorCpuMs).toBeGreaterThan(0)
})

it("counts answers of 400 and above as non-2xx", { timeout: 15_000 }, async () => {
  await requireWrk()
  const url = await listen((request, response) => {
    request.resume()
    request.on("end", () => response.writeHead(503).end())
  })
  const result = await driveWrk({ name: "down", url, headers: {}, pid: null }, "{}", 1, 1)
  expect(result.responses).toBeGreaterThan(0)
  expect(result.non2xx).toBe(result.responses)
})

it("says what wrk printed when it printed no summary", () => {
  expect(() => parseWrkSummary("unable to connect to 127.0.0.1:1 Connection refused\n")).toThrow(
    /wrk printed no summary:\nunable to connect/
  )
})
