/**
 * Lookup latency of the semantic index at 100,000 entries, all in ONE partition (the worst case:
 * every prompt shares model and parameters). Vectors come from the local embedder over synthetic
 * prompts; queries are near-duplicates of stored prompts (hits) and fresh prompts (misses).
 * Run: node packages/cache/bench/SemanticLookup.ts  (prints p50/p99 in ms)
 */
import { Embedder, SemanticIndex } from "@switchyard/cache"

const ENTRIES = Number(process.env.ENTRIES ?? 100_000)
const QUERIES = 2_000
const words = (
  "the a of to and in is for on with how what why when which who explain write summarise list compare describe " +
  "history science python code recipe bread travel paris rome market stock weather health sleep music guitar " +
  "database index query network server cloud budget tax invoice email letter poem story essay report planet " +
  "ocean river mountain forest energy solar battery engine car train flight hotel dinner lunch coffee tea garden"
).split(" ")
let seed = 42
const random = () => ((seed = (Math.imul(seed, 1_103_515_245) + 12_345) >>> 0) / 4_294_967_296)
const prompt = () =>
  Array.from({ length: 8 + Math.floor(random() * 16) }, () => words[Math.floor(random() * words.length)]).join(" ")

const index = new SemanticIndex.SemanticIndex({ entries: ENTRIES })
const stored: Array<string> = []
let started = performance.now()
for (let i = 0; i < ENTRIES; i++) {
  const text = prompt()
  stored.push(text)
  index.add("p", `k${i}`, Embedder.localEmbedding(text), Number.MAX_SAFE_INTEGER, 0)
}
console.log(`indexed ${ENTRIES} entries in ${((performance.now() - started) / 1000).toFixed(1)} s`)

const measure = (label: string, queries: ReadonlyArray<Float32Array>) => {
  for (const query of queries.slice(0, 200)) index.search("p", query, 0.95, 1) // warm up
  const times: Array<number> = []
  let hits = 0
  for (const query of queries) {
    started = performance.now()
    if (index.search("p", query, 0.95, 1) !== undefined) hits++
    times.push(performance.now() - started)
  }
  times.sort((a, b) => a - b)
  const at = (q: number) => (times[Math.min(times.length - 1, Math.floor(q * times.length))] ?? 0).toFixed(3)
  console.log(`${label}: p50 ${at(0.5)} ms, p99 ${at(0.99)} ms, max ${at(1)} ms, matched ${hits}/${queries.length}`)
}

measure(
  "near-duplicate queries",
  Array.from(
    { length: QUERIES },
    (_, i) => Embedder.localEmbedding(`${(stored[(i * 7919) % ENTRIES] ?? "").toUpperCase()}?`)
  )
)
measure("unrelated queries", Array.from({ length: QUERIES }, () => Embedder.localEmbedding(prompt())))
