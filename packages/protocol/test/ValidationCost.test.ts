/**
 * Validation time grows linearly with the input, whatever its shape. Each figure is the fastest
 * of several timed batches of decodes, so the ratios hold on a busy machine: linear work takes
 * about twice as long for twice the input, where the old config decoder took 2^depth as long.
 */
import { describe, expect, it } from "@effect/vitest"
import { ChatCompletionRequest, GatewayConfig } from "@switchyard/protocol"
import { Result } from "effect"

type Decode = (input: unknown) => Result.Result<unknown, unknown>

/** The batch size that makes one timed batch of `input` last at least 10 ms. */
const batchFor = (decode: Decode, input: unknown): number => {
  expect(Result.isSuccess(decode(input))).toBe(true)
  let batch = 1
  while (timeBatch(decode, input, batch) < 10) batch *= 2
  return batch
}

const timeBatch = (decode: Decode, input: unknown, batch: number): number => {
  const started = performance.now()
  for (let index = 0; index < batch; index++) decode(input)
  return performance.now() - started
}

/**
 * Milliseconds per decode of each input: the fastest of 9 batches, taken in turns over the
 * inputs. Other test files share the CPUs and only ever slow a batch down, so the fastest is
 * the closest to the work itself, and taking turns spreads a busy spell over every input.
 */
const costs = (decode: Decode, inputs: ReadonlyArray<unknown>): Array<number> => {
  const batches = inputs.map((input) => batchFor(decode, input))
  const fastest = inputs.map(() => Number.POSITIVE_INFINITY)
  for (let round = 0; round < 9; round++) {
    inputs.forEach((input, index) => {
      const batch = batches[index] ?? 1
      fastest[index] = Math.min(fastest[index] ?? Number.POSITIVE_INFINITY, timeBatch(decode, input, batch) / batch)
    })
  }
  return fastest
}

/**
 * Four times the input costs under sixteen times as much (what quadratic work would cost), and
 * twice the input under five times; the wide margins absorb a machine busy with other tests (the
 * exponential decoder this guards against cost 30 times as much for 5 more levels).
 */
const expectLinear = (decode: Decode, make: (n: number) => unknown, n: number) => {
  const [single = 0, double = 0, quadruple = 0] = costs(decode, [make(n), make(2 * n), make(4 * n)])
  expect(double / single).toBeLessThan(5)
  expect(quadruple / single).toBeLessThan(13)
}

const leaf = { provider: "openai", api_key: "sk", retry: { attempts: 2 }, cache: { mode: "simple" } }
const chain = (depth: number): unknown =>
  depth === 0 ? leaf : { strategy: { mode: "fallback" }, targets: [chain(depth - 1)] }
const comb = (depth: number): unknown =>
  depth === 0 ? leaf : { strategy: { mode: "fallback" }, targets: [leaf, comb(depth - 1), leaf] }
const wide = (width: number): unknown => ({
  strategy: { mode: "loadbalance" },
  targets: Array.from({ length: width }, () => leaf)
})

const chat = (extra: Record<string, unknown>) => ({ model: "m", messages: [{ role: "user", content: "hi" }], ...extra })
const nested = (depth: number): unknown =>
  depth === 0 ? { type: "string" } : { type: "object", properties: { a: nested(depth - 1) } }

describe("validation work", () => {
  it("grows linearly with the depth of a config (up to the limit of 10 strategy levels)", () => {
    const [chain5 = 0, chain10 = 0] = costs(GatewayConfig.decodeResult, [chain(5), chain(10)])
    expect(chain10 / chain5).toBeLessThan(8)
    const [comb5 = 0, comb10 = 0] = costs(GatewayConfig.decodeResult, [comb(5), comb(10)])
    expect(comb10 / comb5).toBeLessThan(8)
  })

  it("grows linearly with the number of targets", () => {
    expectLinear(GatewayConfig.decodeResult, wide, 50)
  })

  it("grows linearly with the messages and tools of a chat body", () => {
    expectLinear(ChatCompletionRequest.decodeResult, (n) =>
      chat({
        messages: Array.from({ length: n * 4 }, (_, index) => ({ role: "user", content: `message ${index}` })),
        tools: Array.from({ length: n }, (_, index) => ({
          type: "function",
          function: { name: `tool_${index}`, parameters: nested(4) }
        }))
      }), 30)
  })

  it("grows linearly with the depth of a tool's JSON schema and of a response format", () => {
    expectLinear(ChatCompletionRequest.decodeResult, (n) =>
      chat({
        tools: [{ type: "function", function: { name: "f", parameters: nested(n * 3) } }],
        response_format: { type: "json_schema", json_schema: { name: "s", schema: nested(n * 3) } }
      }), 5)
  })

  it("grows linearly with the metadata of a chat body", () => {
    // 16 pairs at most: what can grow is the length of the values
    expectLinear(ChatCompletionRequest.decodeResult, (n) =>
      chat({
        metadata: Object.fromEntries(Array.from({ length: 16 }, (_, index) => [`key${index}`, "v".repeat(n)]))
      }), 100)
  })
})
