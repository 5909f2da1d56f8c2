/**
 * Turns texts into unit vectors for semantic matching. Two layers: a local one (hashed character
 * 3-grams, no network, no model), and one that calls an embeddings model through a function the
 * app supplies (for example a call through the gateway itself).
 */
import { Context, Data, Effect, Layer } from "effect"

/** The embedder could not produce vectors; the cache then matches exactly. */
export class EmbedderError extends Data.TaggedError("EmbedderError")<{ readonly message: string }> {}

export class Embedder extends Context.Service<Embedder, {
  /** Names the vector space: vectors of different ids are never compared. */
  readonly id: string
  /** One unit vector per text, in order. */
  readonly embed: (texts: ReadonlyArray<string>) => Effect.Effect<ReadonlyArray<Float32Array>, EmbedderError>
}>()("@switchyard/cache/Embedder") {}

/** Dimensions of the local embedder's vectors. */
export const LOCAL_DIMENSIONS = 512

/**
 * The local embedding of one text: lower-cased, punctuation dropped, whitespace collapsed; each
 * character 3-gram is hashed (FNV-1a) to a dimension and a sign, counted, and the vector normalised.
 * Signed hashing keeps unrelated texts near cosine 0 rather than sharing a positive bias.
 *
 * @example
 * import { Embedder } from "@switchyard/cache"
 * const vector = Embedder.localEmbedding("What is the capital of France?") // Float32Array(512), norm 1
 */
export const localEmbedding = (text: string, dimensions: number = LOCAL_DIMENSIONS): Float32Array => {
  const vector = new Float32Array(dimensions)
  const normalised = ` ${text.toLowerCase().replace(/[^\p{L}\p{N}]+/gu, " ").trim()} `
  for (let i = 0; i + 3 <= normalised.length; i++) {
    let hash = 0x811c9dc5
    for (let j = i; j < i + 3; j++) {
      hash ^= normalised.charCodeAt(j)
      hash = Math.imul(hash, 0x01000193)
    }
    const index = (hash >>> 1) % dimensions
    vector[index] = (vector[index] ?? 0) + ((hash & 1) === 0 ? 1 : -1)
  }
  return normalise(vector)
}

/** The vector scaled to length 1 (a zero vector stays zero). */
export const normalise = (vector: Float32Array): Float32Array => {
  let sum = 0
  for (let i = 0; i < vector.length; i++) sum += (vector[i] ?? 0) * (vector[i] ?? 0)
  if (sum === 0) return vector
  const scale = 1 / Math.sqrt(sum)
  for (let i = 0; i < vector.length; i++) vector[i] = (vector[i] ?? 0) * scale
  return vector
}

/** The built-in embedder: {@link localEmbedding}, offline. */
export const layerLocal: Layer.Layer<Embedder> = Layer.succeed(
  Embedder,
  Embedder.of({
    id: `local-3gram-${LOCAL_DIMENSIONS}`,
    embed: (texts) => Effect.sync(() => texts.map((text) => localEmbedding(text)))
  })
)

/**
 * An embedder over a function the app supplies, typically an embeddings call through the gateway
 * (an integration and a model named in server configuration). Vectors are normalised here; `id`
 * must change whenever the model does.
 *
 * @example
 * import { Embedder } from "@switchyard/cache"
 * const layer = Embedder.layerRemote({ id: "openai/text-embedding-3-small", embed: (texts) => callEmbeddings(texts) })
 */
export const layerRemote = (options: {
  readonly id: string
  readonly embed: (texts: ReadonlyArray<string>) => Effect.Effect<ReadonlyArray<ArrayLike<number>>, unknown>
}): Layer.Layer<Embedder> =>
  Layer.succeed(
    Embedder,
    Embedder.of({
      id: `remote:${options.id}`,
      embed: (texts) =>
        options.embed(texts).pipe(
          Effect.mapError((cause) => new EmbedderError({ message: messageOf(cause) })),
          Effect.flatMap((vectors) =>
            vectors.length === texts.length
              ? Effect.succeed(vectors.map((vector) => normalise(Float32Array.from(vector))))
              : Effect.fail(
                new EmbedderError({ message: `expected ${texts.length} vectors, got ${vectors.length}` })
              )
          )
        )
    })
  )

const messageOf = (cause: unknown): string =>
  typeof cause === "object" && cause !== null && "message" in cause && typeof cause.message === "string"
    ? cause.message
    : String(cause)
