import { assert, it as effectIt } from "@effect/vitest"
import { RedisServer } from "@switchyard/fake-providers"
import { Readiness } from "@switchyard/server"
import { Effect, Fiber } from "effect"
import { TestClock } from "effect/testing"
import { execFileSync } from "node:child_process"
import { randomBytes } from "node:crypto"
import { describe, expect, it } from "vitest"
import { json } from "./support/Fixtures.ts"
import * as GatewayProcess from "./support/GatewayProcess.ts"
import * as TcpProxy from "./support/TcpProxy.ts"

const ready = async (gateway: GatewayProcess.GatewayProcess) => {
  const response = await fetch(`${gateway.baseUrl}/ready`)
  return { status: response.status, body: await json(response) }
}

/** Polls /ready until it answers `status` (a client reconnecting in the background), for at most 10 s. */
const eventuallyReady = async (gateway: GatewayProcess.GatewayProcess, status: number) => {
  const deadline = Date.now() + 10_000
  for (;;) {
    const answer = await ready(gateway)
    if (answer.status === status) return answer
    if (Date.now() > deadline) throw new Error(`/ready still answers ${answer.status}:\n${gateway.output()}`)
    await new Promise((resolve) => setTimeout(resolve, 50))
  }
}

const health = async (gateway: GatewayProcess.GatewayProcess) => (await fetch(`${gateway.baseUrl}/health`)).status

describe("GET /ready", () => {
  it("answers 200 without a key once the embedded database answers", async () => {
    const gateway = await GatewayProcess.start()
    try {
      expect(await ready(gateway)).toEqual({ status: 200, body: { status: "ready", checks: { database: "ok" } } })
    } finally {
      await gateway.stop()
    }
  })

  it("answers 503 naming Redis while the configured Redis is down, and 200 once it is back; /health stays 200", async () => {
    const redis = await RedisServer.start()
    const gateway = await GatewayProcess.start({ REDIS_URL: redis.url })
    try {
      expect(await eventuallyReady(gateway, 200)).toEqual({
        status: 200,
        body: { status: "ready", checks: { database: "ok", redis: "ok" } }
      })
      await redis.kill()
      const down = await eventuallyReady(gateway, 503)
      expect(down.body).toEqual({
        error: { message: "not ready: redis is down", type: "server_error", param: null, code: "unavailable" },
        checks: { database: "ok", redis: "down" }
      })
      expect(await health(gateway)).toBe(200)
      await redis.restart()
      await eventuallyReady(gateway, 200)
    } finally {
      await gateway.stop()
      await redis.kill()
    }
  })

  it("answers 503 naming the database while Postgres cannot be reached, and 200 once it can", async () => {
    const database = `switchyard_ready_${randomBytes(4).toString("hex")}`
    const psql = (sql: string) => execFileSync("psql", ["-h", "127.0.0.1", "-U", "postgres", "-d", "test", "-c", sql])
    psql(`CREATE DATABASE ${database}`)
    // the machine's Postgres stays up; the gateway reaches it through a proxy the test can cut
    const proxy = await TcpProxy.start({ host: "127.0.0.1", port: 5432 })
    try {
      const gateway = await GatewayProcess.start({
        DATABASE_URL: `postgres://postgres@127.0.0.1:${proxy.port}/${database}`,
        GATEWAY_SECRET: randomBytes(32).toString("base64")
      })
      try {
        expect((await ready(gateway)).body).toEqual({ status: "ready", checks: { database: "ok" } })
        await proxy.cut()
        const down = await eventuallyReady(gateway, 503)
        expect(down.body.error.message).toBe("not ready: database is down")
        expect(down.body.checks).toEqual({ database: "down" })
        expect(await health(gateway)).toBe(200)
        await proxy.restore()
        await eventuallyReady(gateway, 200)
      } finally {
        await gateway.stop()
      }
    } finally {
      await proxy.close()
      psql(`DROP DATABASE IF EXISTS ${database} WITH (FORCE)`)
    }
  })
})

describe("Readiness", () => {
  effectIt.effect("counts a store that does not answer within the probe timeout as down", () =>
    Effect.gen(function*() {
      const readiness = Readiness.make([
        { name: "database", probe: Effect.void },
        { name: "redis", probe: Effect.never }
      ])
      const fiber = yield* Effect.forkChild(readiness.check)
      yield* TestClock.adjust(Readiness.PROBE_TIMEOUT)
      assert.deepStrictEqual(yield* Fiber.join(fiber), { database: "ok", redis: "down" })
    }))

  effectIt.effect("names every store that is down", () =>
    Effect.gen(function*() {
      const readiness = Readiness.make([
        { name: "database", probe: Effect.fail("refused") },
        { name: "redis", probe: Effect.fail("refused") }
      ])
      assert.deepStrictEqual(Readiness.down(yield* readiness.check), ["database", "redis"])
    }))
})
