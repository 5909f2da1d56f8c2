/**
 * The nearest stored vector to a query, per partition, in this process's memory. Each partition
 * is a flat Float32Array of unit vectors (cosine = dot product); a 128-bit SimHash of each vector
 * screens candidates first, so a lookup touches 16 bytes per entry and computes full dot products
 * only for the few entries whose signature is close enough to possibly reach the threshold.
 */
import { LeastRecentlyUsed } from "@switchyard/core"

/** Random hyperplanes per signature; four 32-bit words. */
const SIGNATURE_BITS = 128
const WORDS = SIGNATURE_BITS / 32

export interface Match {
  readonly key: string
  readonly similarity: number
}

class Partition {
  count = 0
  /** The store list offset read so far. */
  offset = 0
  vectors: Float32Array
  signatures: Uint32Array
  expires: Float64Array
  keys: Array<string> = []

  readonly dimensions: number

  constructor(dimensions: number, capacity: number) {
    this.dimensions = dimensions
    this.vectors = new Float32Array(capacity * dimensions)
    this.signatures = new Uint32Array(capacity * WORDS)
    this.expires = new Float64Array(capacity)
  }

  get capacity(): number {
    return this.expires.length
  }

  grow(capacity: number): void {
    const vectors = new Float32Array(capacity * this.dimensions)
    vectors.set(this.vectors.subarray(0, this.count * this.dimensions))
    const signatures = new Uint32Array(capacity * WORDS)
    signatures.set(this.signatures.subarray(0, this.count * WORDS))
    const expires = new Float64Array(capacity)
    expires.set(this.expires.subarray(0, this.count))
    this.vectors = vectors
    this.signatures = signatures
    this.expires = expires
  }

  /** Keeps the entries for which `keep(index)` holds, in order. */
  retain(keep: (index: number) => boolean): void {
    let to = 0
    for (let from = 0; from < this.count; from++) {
      if (!keep(from)) continue
      if (to !== from) {
        this.vectors.copyWithin(to * this.dimensions, from * this.dimensions, (from + 1) * this.dimensions)
        this.signatures.copyWithin(to * WORDS, from * WORDS, (from + 1) * WORDS)
        this.expires[to] = this.expires[from] ?? 0
        this.keys[to] = this.keys[from] ?? ""
      }
      to++
    }
    this.count = to
    this.keys.length = to
  }
}

export class SemanticIndex {
  readonly #partitions: LeastRecentlyUsed.LeastRecentlyUsed<string, Partition>
  readonly #maxEntries: number
  readonly #planes = new Map<number, Float32Array>()

  /** At most `partitions` partitions (default 10,000) of at most `entries` vectors (default 100,000). */
  constructor(options?: { readonly partitions?: number; readonly entries?: number }) {
    this.#partitions = new LeastRecentlyUsed.LeastRecentlyUsed(options?.partitions ?? 10_000)
    this.#maxEntries = options?.entries ?? 100_000
  }

  /** The store offset read so far for `partition` (0 when unknown). */
  offset(partition: string): number {
    return this.#partitions.get(partition)?.offset ?? 0
  }

  setOffset(partition: string, offset: number): void {
    const found = this.#partitions.get(partition)
    if (found !== undefined) found.offset = offset
  }

  /** Forgets a partition (its store list expired). */
  reset(partition: string): void {
    this.#partitions.delete(partition)
  }

  /** Adds a unit vector naming the entry `key`, valid until `expiresAt` (epoch ms). */
  add(partition: string, key: string, vector: Float32Array, expiresAt: number, now: number): void {
    let found = this.#partitions.get(partition)
    if (found === undefined || found.dimensions !== vector.length) {
      const offset = found?.offset ?? 0
      found = new Partition(vector.length, 64)
      found.offset = offset
      this.#partitions.set(partition, found)
    }
    const target = found
    if (target.count === target.capacity) {
      if (target.count >= this.#maxEntries) {
        // drop the expired, and if that is not enough the oldest quarter
        target.retain((index) => (target.expires[index] ?? 0) > now)
        if (target.count >= this.#maxEntries) {
          const cut = Math.ceil(target.count / 4)
          target.retain((index) => index >= cut)
        }
      }
      if (target.count === target.capacity) target.grow(Math.min(this.#maxEntries, target.capacity * 2))
    }
    const at = target.count
    target.vectors.set(vector, at * target.dimensions)
    this.#sign(vector, target.signatures, at * WORDS)
    target.expires[at] = expiresAt
    target.keys[at] = key
    target.count++
  }

  /** The most similar unexpired entry with cosine similarity >= `threshold`, if any. */
  search(partition: string, vector: Float32Array, threshold: number, now: number): Match | undefined {
    const found = this.#partitions.get(partition)
    if (found === undefined || found.dimensions !== vector.length || found.count === 0) return undefined
    const query = new Uint32Array(WORDS)
    this.#sign(vector, query, 0)
    const maxDistance = hammingBound(threshold)
    const { count, dimensions, expires, signatures, vectors } = found
    const q0 = query[0] ?? 0, q1 = query[1] ?? 0, q2 = query[2] ?? 0, q3 = query[3] ?? 0
    let best: Match | undefined
    for (let i = 0; i < count; i++) {
      const s = i * WORDS
      let distance = popcount((signatures[s] ?? 0) ^ q0) + popcount((signatures[s + 1] ?? 0) ^ q1)
      if (distance > maxDistance) continue
      distance += popcount((signatures[s + 2] ?? 0) ^ q2) + popcount((signatures[s + 3] ?? 0) ^ q3)
      if (distance > maxDistance || (expires[i] ?? 0) <= now) continue
      let dot = 0
      const base = i * dimensions
      for (let d = 0; d < dimensions; d++) dot += (vectors[base + d] ?? 0) * (vector[d] ?? 0)
      if (dot >= threshold && (best === undefined || dot > best.similarity)) {
        best = { key: found.keys[i] ?? "", similarity: dot }
      }
    }
    return best
  }

  /** Entries held in `partition`. */
  size(partition: string): number {
    return this.#partitions.get(partition)?.count ?? 0
  }

  #sign(vector: Float32Array, into: Uint32Array, at: number): void {
    const planes = this.#planesFor(vector.length)
    const dimensions = vector.length
    for (let bit = 0; bit < SIGNATURE_BITS; bit++) {
      let dot = 0
      const base = bit * dimensions
      for (let d = 0; d < dimensions; d++) dot += (planes[base + d] ?? 0) * (vector[d] ?? 0)
      if (dot >= 0) {
        const word = at + (bit >>> 5)
        into[word] = (into[word] ?? 0) | (1 << (bit & 31))
      }
    }
  }

  #planesFor(dimensions: number): Float32Array {
    let planes = this.#planes.get(dimensions)
    if (planes === undefined) {
      planes = gaussianPlanes(SIGNATURE_BITS, dimensions)
      this.#planes.set(dimensions, planes)
    }
    return planes
  }
}

/**
 * The signature distance beyond which two vectors cannot plausibly reach `threshold`: each bit
 * differs with probability angle / pi, so twice the expected count plus 8 leaves the chance of
 * screening out a true match negligible (3e-8 at 0.95, where 12.9 of 128 bits differ on average).
 */
export const hammingBound = (threshold: number): number =>
  Math.min(SIGNATURE_BITS, Math.ceil((2 * SIGNATURE_BITS * Math.acos(Math.min(1, threshold))) / Math.PI + 8))

const popcount = (word: number): number => {
  let x = word - ((word >>> 1) & 0x55555555)
  x = (x & 0x33333333) + ((x >>> 2) & 0x33333333)
  x = (x + (x >>> 4)) & 0x0f0f0f0f
  return Math.imul(x, 0x01010101) >>> 24
}

/** Deterministic Gaussian hyperplanes (every process gets the same), from a seeded generator. */
const gaussianPlanes = (count: number, dimensions: number): Float32Array => {
  let seed = 0x5eed ^ dimensions
  const uniform = () => {
    seed = (seed + 0x6d2b79f5) | 0
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed)
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t
    return (((t ^ (t >>> 14)) >>> 0) + 1) / 4294967297
  }
  const planes = new Float32Array(count * dimensions)
  for (let i = 0; i < planes.length; i++) {
    planes[i] = Math.sqrt(-2 * Math.log(uniform())) * Math.cos(2 * Math.PI * uniform())
  }
  return planes
}
