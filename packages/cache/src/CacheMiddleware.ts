/**
 * The `cache` of a gateway config as a pipeline stage (phase `cache`): each leaf with a `cache` answers from
 * the store when it can, and stores its upstream's 200 answers (plain, or streamed to completion).
 * It belongs outside retry, so that a hit never calls upstream and a miss is stored once, whatever
 * the attempts it took.
 */
import {
  type Dispatch,
  GatewayError,
  type GatewayRequest,
  GatewayResponse,
  type ProviderTarget,
  Stage
} from "@switchyard/core"
import { Clock, Deferred, Effect, Exit, type Layer, Option, Schema, Stream } from "effect"
import * as CacheKey from "./CacheKey.ts"
import { CacheStore } from "./CacheStore.ts"
import { Accumulator, toChunks } from "./ChatCompletionStream.ts"
import { Embedder } from "./Embedder.ts"
import { SemanticIndex } from "./SemanticIndex.ts"

/** Response header: how the cache answered. */
export const STATUS_HEADER = "x-gateway-cache-status"
/** Request header: `true` calls upstream and replaces the entry. */
export const FORCE_REFRESH_HEADER = "x-gateway-cache-force-refresh"

export type Status = "HIT" | "SEMANTIC HIT" | "MISS" | "SEMANTIC MISS" | "REFRESH" | "DISABLED"

/** `max_age` when the config does not set it: 7 days, in seconds. */
export const DEFAULT_MAX_AGE = 7 * 24 * 60 * 60
/** Cosine similarity a semantic match needs unless the options say otherwise. */
export const DEFAULT_THRESHOLD = 0.95

export interface Options {
  /** Cosine similarity at or above which a semantic match is served (default 0.95). */
  readonly threshold?: number
  /** Bounds of the in-process vector index (defaults 10,000 partitions of 100,000 vectors). */
  readonly index?: { readonly partitions?: number; readonly entries?: number }
}

/** A stored answer: the body's JSON text and when it stops being served. */
export interface Entry {
  readonly expiresAt: number
  readonly body: string
}

const EntryHead = Schema.fromJsonString(Schema.Struct({ storedAt: Schema.Number, expiresAt: Schema.Number }))
const decodeHead = Schema.decodeUnknownOption(EntryHead)

const encodeEntry = (storedAt: number, entry: Entry): string =>
  `${JSON.stringify({ storedAt, expiresAt: entry.expiresAt })}\n${entry.body}`

const decodeEntry = (value: string): Entry | undefined => {
  const newline = value.indexOf("\n")
  if (newline < 0) return undefined
  const head = decodeHead(value.slice(0, newline))
  return Option.isSome(head) ? { expiresAt: head.value.expiresAt, body: value.slice(newline + 1) } : undefined
}

const VectorHead = Schema.fromJsonString(Schema.Struct({ key: Schema.String, expiresAt: Schema.Number }))
const decodeVectorHead = Schema.decodeUnknownOption(VectorHead)

const vectorListOf = (partition: string) => `vectors:${partition}`

const encodeVector = (key: string, expiresAt: number, vector: Float32Array): string =>
  `${JSON.stringify({ key, expiresAt })}\n${
    Buffer.from(vector.buffer, vector.byteOffset, vector.byteLength).toString("base64")
  }`

const decodeVector = (item: string) => {
  const newline = item.indexOf("\n")
  if (newline < 0) return undefined
  const head = decodeVectorHead(item.slice(0, newline))
  if (Option.isNone(head)) return undefined
  const bytes = Buffer.from(item.slice(newline + 1), "base64")
  if (bytes.byteLength % 4 !== 0) return undefined
  const vector = new Float32Array(bytes.byteLength / 4)
  new Uint8Array(vector.buffer).set(bytes)
  return { ...head.value, vector }
}

const textEncoder = new TextEncoder()
const textDecoder = new TextDecoder()

/** What a leaf's cache does, once decoded. */
export interface Settings {
  readonly mode: "simple" | "semantic"
  /** Seconds; 0 disables the cache for the leaf (status `DISABLED`). */
  readonly maxAge: number
  /** {@link CacheKey.targetId} of the leaf. */
  readonly target: string
}

/** The services and shared state behind every leaf's cache. */
export interface Runtime {
  readonly store: CacheStore["Service"]
  readonly embedder: Embedder["Service"]
  readonly index: SemanticIndex
  readonly threshold: number
  /** Misses in flight, by key: followers wait for the leader's entry. */
  readonly flights: Map<string, Deferred.Deferred<Entry | undefined>>
}

/** Builds the shared state once; every leaf's middleware made from it shares index and flights. */
export const runtime = (options?: Options): Effect.Effect<Runtime, never, CacheStore | Embedder> =>
  Effect.gen(function*() {
    return {
      store: yield* CacheStore,
      embedder: yield* Embedder,
      index: new SemanticIndex(options?.index),
      threshold: options?.threshold ?? DEFAULT_THRESHOLD,
      flights: new Map()
    }
  })

const logged = (what: string) => (error: { readonly message: string }) =>
  Effect.as(Effect.logWarning(`cache: ${what} failed, treated as a miss`, error.message), undefined)

/**
 * The middleware of one leaf.
 *
 * @example
 * import { CacheMiddleware } from "@switchyard/cache"
 * import { Dispatch } from "@switchyard/core"
 * const cached = Dispatch.compose(upstream, CacheMiddleware.make(runtime, { mode: "simple", maxAge: 3600, target: "t" }))
 */
export const make = (runtime: Runtime, settings: Settings): Dispatch.Middleware => {
  const { embedder, flights, index, store, threshold } = runtime
  const ttl = settings.maxAge * 1000
  const disabled = { [STATUS_HEADER]: "DISABLED" }

  const lookup = (key: string) =>
    Effect.gen(function*() {
      const value = yield* store.get(key).pipe(Effect.catch(logged("read")))
      const entry = value === undefined ? undefined : decodeEntry(value)
      return entry !== undefined && entry.expiresAt > (yield* Clock.currentTimeMillis) ? entry : undefined
    })

  const save = (key: string, body: string, semantic: SemanticKey | undefined) =>
    Effect.gen(function*() {
      const now = yield* Clock.currentTimeMillis
      const entry: Entry = { expiresAt: now + ttl, body }
      yield* store.set(key, encodeEntry(now, entry), ttl).pipe(Effect.catch(logged("write")))
      if (semantic !== undefined) {
        yield* store.append(vectorListOf(semantic.partition), encodeVector(key, entry.expiresAt, semantic.vector), ttl)
          .pipe(Effect.catch(logged("vector write")))
      }
      return entry
    })

  /** Reads the partition's new vectors from the store, then searches the index. */
  const nearest = (partition: string, vector: Float32Array) =>
    Effect.gen(function*() {
      const list = vectorListOf(partition)
      let slice = yield* store.readFrom(list, index.offset(partition)).pipe(Effect.catch(logged("vector read")))
      if (slice?.reset === true) {
        index.reset(partition)
        slice = yield* store.readFrom(list, 0).pipe(Effect.catch(logged("vector read")))
      }
      const now = yield* Clock.currentTimeMillis
      if (slice !== undefined) {
        for (const item of slice.items) {
          const decoded = decodeVector(item)
          if (decoded !== undefined) index.add(partition, decoded.key, decoded.vector, decoded.expiresAt, now)
        }
        index.setOffset(partition, slice.next)
      }
      return index.search(partition, vector, threshold, now)
    })

  return (next) => {
    /** Calls upstream; a 200 answer is stored (a stream once it completed), and `done` hears the entry. */
    const fetch = (
      request: GatewayRequest.GatewayRequest,
      key: string,
      semantic: SemanticKey | undefined,
      status: Status,
      done: (entry: Entry | undefined) => Effect.Effect<void>
    ): Effect.Effect<GatewayResponse.GatewayResponse, GatewayError.GatewayError> => {
      const headers = { [STATUS_HEADER]: status }
      return next(request).pipe(
        Effect.onExit((exit) => (Exit.isFailure(exit) ? done(undefined) : Effect.void)),
        Effect.flatMap((response) => {
          if (response.status !== 200) {
            return Effect.as(done(undefined), GatewayResponse.withHeaders(response, headers))
          }
          if (response._tag === "Json") {
            return Effect.gen(function*() {
              const text = response.text()
              const body = typeof text === "string" ? text : textDecoder.decode(text)
              yield* done(yield* save(key, body, semantic))
              return GatewayResponse.withHeaders(response, headers)
            })
          }
          const accumulator = new Accumulator()
          const chunks = response.chunks.pipe(
            Stream.tap((chunk) => Effect.sync(() => accumulator.add(chunk))),
            Stream.onExit((exit) => {
              const complete = Exit.isSuccess(exit) ? accumulator.complete() : undefined
              return complete === undefined
                ? done(undefined)
                : Effect.flatMap(save(key, JSON.stringify(complete), semantic), done)
            })
          )
          return Effect.succeed(GatewayResponse.withHeaders({ ...response, chunks }, headers))
        })
      )
    }

    /** A miss: the first caller for `key` fetches, the others wait for its entry. */
    const coalesced = (
      request: GatewayRequest.GatewayRequest,
      key: string,
      semantic: SemanticKey | undefined,
      status: Status
    ): Effect.Effect<GatewayResponse.GatewayResponse, GatewayError.GatewayError> =>
      Effect.suspend(() => {
        const leader = flights.get(key)
        if (leader !== undefined) {
          return Effect.flatMap(Deferred.await(leader), (entry) => {
            const served = entry === undefined ? undefined : serve(request, entry, "HIT")
            return served === undefined
              ? fetch(request, key, semantic, status, () => Effect.void)
              : Effect.succeed(served)
          })
        }
        const flight = Deferred.makeUnsafe<Entry | undefined>()
        flights.set(key, flight)
        const done = (entry: Entry | undefined) =>
          Effect.suspend(() => {
            if (flights.get(key) === flight) flights.delete(key)
            return Deferred.succeed(flight, entry)
          })
        return fetch(request, key, semantic, status, (entry) => Effect.asVoid(done(entry)))
      })

    return (request) => {
      if (settings.maxAge <= 0) {
        return Effect.map(next(request), (response) => GatewayResponse.withHeaders(response, disabled))
      }
      return Effect.gen(function*() {
        const scope = CacheKey.scopeOf(request, settings.target)
        const key = CacheKey.simple(request, scope)
        const parts = settings.mode === "semantic" ? CacheKey.semantic(request, scope, embedder.id) : undefined
        const vector = parts === undefined
          ? undefined
          : (yield* embedder.embed([parts.text]).pipe(Effect.catch(logged("embedding"))))?.[0]
        const semantic = parts === undefined || vector === undefined
          ? undefined
          : { partition: parts.partition, vector }
        if (request.context.headers[FORCE_REFRESH_HEADER]?.toLowerCase() === "true") {
          return yield* fetch(request, key, semantic, "REFRESH", () => Effect.void)
        }
        const exact = yield* lookup(key)
        const hit = exact === undefined ? undefined : serve(request, exact, "HIT")
        if (hit !== undefined) return hit
        if (semantic !== undefined) {
          const match = yield* nearest(semantic.partition, semantic.vector)
          const similar = match === undefined ? undefined : yield* lookup(match.key)
          const served = similar === undefined ? undefined : serve(request, similar, "SEMANTIC HIT")
          if (served !== undefined) return served
        }
        return yield* coalesced(request, key, semantic, semantic === undefined ? "MISS" : "SEMANTIC MISS")
      })
    }
  }
}

interface SemanticKey {
  readonly partition: string
  readonly vector: Float32Array
}

/** A stored answer in the form the request asked for; `undefined` when it cannot be read. */
const serve = (
  request: GatewayRequest.GatewayRequest,
  entry: Entry,
  status: Status
): GatewayResponse.GatewayResponse | undefined => {
  const headers = { [STATUS_HEADER]: status }
  if (!request.stream) return GatewayResponse.fromJsonBytes(textEncoder.encode(entry.body), { headers })
  let body: unknown
  try {
    body = JSON.parse(entry.body)
  } catch {
    return undefined
  }
  const options = request.body.stream_options
  const includeUsage = typeof options === "object" && options !== null && "include_usage" in options &&
    options.include_usage === true
  return GatewayResponse.stream(Stream.fromIterable(toChunks(body, { includeUsage })), { headers })
}

/** The target's `cache` (decoded with its config), with the defaults filled in. */
export const settingsOf = (target: ProviderTarget.ProviderTarget): Settings | undefined =>
  target.cache === undefined ? undefined : {
    mode: target.cache.mode,
    maxAge: target.cache.max_age ?? DEFAULT_MAX_AGE,
    target: CacheKey.targetId(target)
  }

const identity: Dispatch.Middleware = (next) => next

/**
 * The per-target factory, with options: a leaf without `cache` gets no middleware (and no status
 * header); one with it gets {@link make} over the shared runtime.
 *
 * @example
 * import { CacheMiddleware, CacheStore, Embedder } from "@switchyard/cache"
 * import { Effect, Layer } from "effect"
 * const cache = CacheMiddleware.factoryWith({ threshold: 0.9 }) // needs CacheStore and Embedder
 */
export const factoryWith = (
  options?: Options
): Effect.Effect<Stage.StageFactory, never, CacheStore | Embedder> =>
  Effect.map(
    runtime(options),
    (shared) => (target) => {
      const settings = settingsOf(target)
      return Effect.succeed(settings === undefined ? identity : make(shared, settings))
    }
  )

/** {@link factoryWith} with the defaults (threshold 0.95). */
export const factory = factoryWith()

/**
 * Adds the cache to the pipeline (phase `cache`, outside retry: a hit never calls upstream). Its
 * store and embedder stay in the layer's type.
 *
 * @example
 * import { CacheMiddleware, CacheStore, Embedder } from "@switchyard/cache"
 * import { ConfigCompiler, Stage } from "@switchyard/core"
 * import { Layer } from "effect"
 * const compiler = ConfigCompiler.ConfigCompiler.layer().pipe(
 *   Layer.provide(CacheMiddleware.stage()),
 *   Layer.provide([Stage.Stages.layer, CacheStore.layerMemory(), Embedder.layerLocal])
 * )
 */
export const stage = (
  options?: Options
): Layer.Layer<never, Stage.StageConflict, CacheStore | Embedder | Stage.Stages> =>
  Stage.layer(Effect.map(factoryWith(options), (cache) => Stage.make("cache", "cache", cache)))
