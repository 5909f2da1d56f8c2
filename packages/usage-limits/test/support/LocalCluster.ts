/**
 * A real three-node Redis Cluster on 127.0.0.1 (no replicas) for the tests, started from
 * `redis-server` in a temporary directory and stopped with the layer's scope; and effect's `Redis`
 * over it, following `MOVED` redirects as a cluster client does. A script whose keys span slots
 * gets Redis's own `CROSSSLOT` error: nothing here hides it.
 */
import { RedisConnection } from "@switchyard/redis"
import { Context, Effect, Layer } from "effect"
import { Redis } from "effect/persistence"
import { execFileSync, spawn } from "node:child_process"
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"

/** Three ports from a random base, so that two test runs on one machine do not meet (each node's bus is its port + 10000). */
const BASE = 21_000 + Math.floor(Math.random() * 9_000)
const PORTS = [BASE, BASE + 1, BASE + 2]

/** Whether `redis-server` and `redis-cli` are on the PATH: without them the cluster tests are skipped. */
export const available = (() => {
  try {
    execFileSync("redis-server", ["--version"], { stdio: "ignore" })
    execFileSync("redis-cli", ["--version"], { stdio: "ignore" })
    return true
  } catch {
    return false
  }
})()

const cli = (port: number, ...args: ReadonlyArray<string>) =>
  execFileSync("redis-cli", ["-h", "127.0.0.1", "-p", String(port), ...args], { encoding: "utf8" })

/** Starts the nodes and joins them; stops them (their own pids) and removes their directory at scope end. */
const nodes = Effect.acquireRelease(
  Effect.gen(function*() {
    const dir = mkdtempSync(join(tmpdir(), "switchyard-cluster-"))
    const children = PORTS.map((port) =>
      spawn("redis-server", [
        "--port",
        String(port),
        "--bind",
        "127.0.0.1",
        "--cluster-enabled",
        "yes",
        "--cluster-config-file",
        join(dir, `nodes-${port}.conf`),
        "--dir",
        dir,
        "--save",
        "",
        "--appendonly",
        "no"
      ], { stdio: "ignore" })
    )
    const state = { dir, children }
    yield* Effect.tryPromise(async () => {
      for (const port of PORTS) await until(() => cli(port, "PING").trim() === "PONG")
      execFileSync("redis-cli", [
        "--cluster",
        "create",
        ...PORTS.map((port) => `127.0.0.1:${port}`),
        "--cluster-replicas",
        "0",
        "--cluster-yes"
      ], { stdio: "ignore" })
      for (const port of PORTS) await until(() => cli(port, "CLUSTER", "INFO").includes("cluster_state:ok"))
    }).pipe(Effect.onError(() => Effect.sync(() => stop(state))))
    return state
  }),
  (state) => Effect.sync(() => stop(state))
)

const stop = (state: { readonly dir: string; readonly children: ReadonlyArray<ReturnType<typeof spawn>> }) => {
  for (const child of state.children) child.kill("SIGKILL")
  rmSync(state.dir, { recursive: true, force: true })
}

/** Polls `check` every 50 ms for up to 10 s. */
const until = async (check: () => boolean) => {
  for (let attempt = 0; attempt < 200; attempt++) {
    try {
      if (check()) return
    } catch {
      // not up yet
    }
    await new Promise((resolve) => setTimeout(resolve, 50))
  }
  throw new Error("the local Redis Cluster did not come up within 10 s")
}

/** `MOVED <slot> <host>:<port>`: the node that serves the key's slot. */
const movedTo = (error: Redis.RedisError): number | undefined => {
  const match = /^MOVED \d+ [^:]+:(\d+)/.exec(error.cause instanceof Error ? error.cause.message : "")
  return match === null ? undefined : Number(match[1])
}

/**
 * effect's `Redis` over the local cluster: each command goes to the first node and, on `MOVED`, to
 * the node named; `SCRIPT LOAD` goes to every node, so that `EVALSHA` finds the script wherever
 * its keys live.
 */
export const layer: Layer.Layer<Redis.Redis, unknown> = Layer.effect(
  Redis.Redis,
  Effect.gen(function*() {
    yield* nodes
    const byPort = new Map<number, Redis.Redis["Service"]>()
    for (const port of PORTS) {
      const context = yield* Layer.build(RedisConnection.layer({ url: `redis://127.0.0.1:${port}` }))
      byPort.set(port, Context.get(context, Redis.Redis))
    }
    const first = byPort.get(PORTS[0] ?? 0)
    if (first === undefined) return yield* Effect.die("no cluster node")
    const send = <A = unknown>(command: string, ...args: ReadonlyArray<string>): Effect.Effect<A, Redis.RedisError> => {
      if (command === "SCRIPT") {
        return Effect.map(
          Effect.forEach([...byPort.values()], (node) => node.send<A>(command, ...args)),
          (answers) => answers[0] as A
        )
      }
      return first.send<A>(command, ...args).pipe(
        Effect.catchTag("RedisError", (error) => {
          const port = movedTo(error)
          const node = port === undefined ? undefined : byPort.get(port)
          return node === undefined ? Effect.fail(error) : node.send<A>(command, ...args)
        })
      )
    }
    return yield* Redis.make({
      send,
      subscribe: () => Effect.fail(new Redis.RedisError({ cause: new Error("not in these tests") })),
      connect: Effect.fail(new Redis.RedisError({ cause: new Error("not in these tests") }))
    })
  })
)
