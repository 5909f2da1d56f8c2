/**
 * Spike (issue 16): N trivial jobs through effect/persistence's PersistedQueue (SQL store) and
 * through effect/workflow on effect/cluster (SQL message and runner storage, socket runners), on a
 * fresh Postgres database each, with 1 and 2 processes. A job inserts one row into spike_done
 * (pid, job), so executions and duplicates are counted. Process 0 produces once every process is
 * ready; the time runs from the first offer to the last job's row.
 *
 *   node --conditions=@switchyard/source apps/worker/spike/QueueEngineSpike.ts run [--jobs 2000]
 *
 * Typechecked with the app (tsconfig.spike.json), never run by the tests: it needs a Postgres.
 */
import * as NodeClusterSocket from "@effect/platform-node/NodeClusterSocket"
import * as NodeRuntime from "@effect/platform-node/NodeRuntime"
import { Database } from "@switchyard/storage"
import { Deferred, Effect, Layer, Option, Redacted, Schema } from "effect"
import { ClusterWorkflowEngine, RunnerAddress } from "effect/cluster"
import { PersistedQueue } from "effect/persistence"
import { SqlClient } from "effect/sql"
import { Activity, Workflow } from "effect/workflow"
import { execFileSync, spawn } from "node:child_process"
import { randomBytes } from "node:crypto"
import { createInterface } from "node:readline"

const TAKERS = 16
const jobsArg = process.argv.indexOf("--jobs")
const JOBS = jobsArg === -1 ? 2000 : Number(process.argv[jobsArg + 1])

// the gateway's own Postgres client, not migrated: the spike makes its own tables
const pg = (url: string) => Database.postgresClient(Database.postgresOptions(Redacted.make(url)))

const record = (job: number) =>
  SqlClient.SqlClient.use((sql) => sql`INSERT INTO spike_done (job, pid) VALUES (${job}, ${process.pid})`)

/** Waits for "go" on stdin (process 0 only), then offers every job with `offer`, 16 at a time. */
const produceOnGo = <R>(offer: (job: number) => Effect.Effect<unknown, unknown, R>) =>
  Effect.gen(function*() {
    const go = yield* Deferred.make<void>()
    createInterface({ input: process.stdin }).on("line", (line) => {
      if (line === "go") Deferred.doneUnsafe(go, Effect.void)
    })
    console.log("ready")
    yield* Deferred.await(go)
    const started = Date.now()
    yield* Effect.forEach(Array.from({ length: JOBS }, (_, job) => job), offer, { concurrency: 16, discard: true })
    console.log(`produced ${Date.now() - started}`)
  })

const Job = Schema.Struct({ job: Schema.Number })

const persisted = (url: string, produces: boolean) =>
  Effect.gen(function*() {
    const queue = yield* PersistedQueue.make({ name: "spike", schema: Job })
    for (let taker = 0; taker < TAKERS; taker++) {
      yield* Effect.forkChild(Effect.forever(queue.take(({ job }) => record(job))))
    }
    if (produces) yield* produceOnGo((job) => queue.offer({ job }, { id: `job-${job}` }))
    else console.log("ready")
    yield* Effect.never
  }).pipe(
    Effect.provide(PersistedQueue.layer.pipe(
      Layer.provide(PersistedQueue.layerStoreSql({ tableName: "spike_queue", pollInterval: "200 millis" }))
    )),
    Effect.provide(pg(url))
  )

const SpikeWorkflow = Workflow.make("SpikeJob", { payload: Job.fields, idempotencyKey: ({ job }) => String(job) })

const workflow = (url: string, produces: boolean, port: number) => {
  const jobs = SpikeWorkflow.toLayer(({ job }) =>
    Activity.make({ name: "record", execute: Effect.orDie(Effect.asVoid(record(job))) })
  )
  const cluster = NodeClusterSocket.layer({
    storage: "sql",
    shardingConfig: { runnerAddress: Option.some(RunnerAddress.make("127.0.0.1", port)) }
  })
  return Effect.gen(function*() {
    if (produces) yield* produceOnGo((job) => SpikeWorkflow.execute({ job }, { discard: true }))
    else console.log("ready")
    yield* Effect.never
  }).pipe(
    Effect.provide(jobs.pipe(Layer.provideMerge(ClusterWorkflowEngine.layer), Layer.provideMerge(cluster))),
    Effect.provide(pg(url))
  )
}

const consume = () => {
  const [engine, url, index, port] = process.argv.slice(3)
  const produces = index === "0"
  const program = engine === "persisted"
    ? persisted(url ?? "", produces)
    : workflow(url ?? "", produces, Number(port))
  NodeRuntime.runMain(program)
}

const psql = (db: string, sql: string) =>
  execFileSync("psql", ["-h", "127.0.0.1", "-U", "postgres", "-d", db, "-tAc", sql]).toString().trim()

const runOnce = async (engine: string, processes: number) => {
  const db = `spike_${randomBytes(4).toString("hex")}`
  psql("test", `CREATE DATABASE ${db}`)
  psql(db, "CREATE TABLE spike_done (job INTEGER NOT NULL, pid INTEGER NOT NULL)")
  const url = `postgres://postgres@127.0.0.1:5432/${db}`
  const children = Array.from({ length: processes }, (_, index) =>
    spawn(process.execPath, [
      "--conditions=@switchyard/source",
      new URL(import.meta.url).pathname,
      "consume",
      engine,
      url,
      String(index),
      String(34_400 + index),
      "--jobs",
      String(JOBS)
    ], { stdio: ["pipe", "pipe", "inherit"] }))
  const lines = children.map((child) => {
    const seen: Array<string> = []
    createInterface({ input: child.stdout }).on("line", (line) => seen.push(line))
    return seen
  })
  while (!lines.every((seen) => seen.includes("ready"))) await new Promise((resolve) => setTimeout(resolve, 100))
  // let the cluster's runners find each other and share the shards
  await new Promise((resolve) => setTimeout(resolve, engine === "workflow" ? 5_000 : 500))
  const started = Date.now()
  children[0]?.stdin?.write("go\n")
  let done = { rows: 0, distinct: 0 }
  while (done.distinct < JOBS && Date.now() - started < 300_000) {
    await new Promise((resolve) => setTimeout(resolve, 50))
    const [rows, distinct] = psql(db, "SELECT COUNT(*) || ',' || COUNT(DISTINCT job) FROM spike_done").split(",")
    done = { rows: Number(rows), distinct: Number(distinct) }
  }
  const ms = Date.now() - started
  const perProcess = psql(
    db,
    "SELECT string_agg(n::text, '/') FROM (SELECT COUNT(*) AS n FROM spike_done GROUP BY pid) c"
  )
  for (const child of children) child.kill("SIGTERM")
  await new Promise((resolve) => setTimeout(resolve, 1_000))
  for (const child of children) if (child.exitCode === null) child.kill("SIGKILL")
  psql("test", `DROP DATABASE ${db} WITH (FORCE)`)
  const produced = lines[0]?.find((line) => line.startsWith("produced"))
  console.log(
    `${engine} x${processes}: ${done.distinct}/${JOBS} jobs in ${ms} ms = ${
      Math.round(done.distinct / (ms / 1000))
    } jobs/s (${produced} ms; ${done.rows - done.distinct} duplicates; rows per process ${perProcess})`
  )
}

if (process.argv[2] === "consume") consume()
else {
  const engines = process.argv.includes("--only") ? [process.argv[process.argv.indexOf("--only") + 1] ?? ""] : [
    "persisted",
    "workflow"
  ]
  for (const engine of engines) for (const processes of [1, 2]) await runOnce(engine, processes)
}
