import { parseArgs } from "node:util"

export const loadGenerators = ["autocannon", "wrk"] as const
export type LoadGenerator = (typeof loadGenerators)[number]

export interface BenchFlags {
  readonly durationSeconds: number
  readonly warmupSeconds: number
  readonly connections: ReadonlyArray<number>
  readonly streamChunkDelayMs: number
  readonly portkey: boolean
  /** Node binary for Portkey; undefined = Node 20.20.2 from npm, cached beside it. */
  readonly portkeyNode: string | undefined
  readonly gatewayStandIn: boolean
  readonly fallback: boolean
  readonly cache: boolean
  /** Also measure POST /v1/messages translated to the OpenAI-format fake. */
  readonly messages: boolean
  /** Redis for the `--limits` variant with shared counters; undefined: that variant is skipped. */
  readonly limits: boolean
  readonly limitsRedis: string | undefined
  /** Also the gateway with OpenTelemetry traces on, exported to a local OTLP sink that discards them. */
  readonly otlp: boolean
  /** Also the gateway with its request log, metrics and access lines off: what they cost together. */
  readonly observabilityOff: boolean
  /** Rounds of every target in turn; each target is reported by its median round. */
  readonly rounds: number
  /** What sends the load: autocannon in the bench's process, or wrk (Debian's `wrk`) beside it. */
  readonly loadGenerator: LoadGenerator
  readonly help: boolean
}

export const usage = `node bench/src/main.ts [flags]

  --duration <s>            measured seconds per run (default 10)
  --warmup <s>              discarded warm-up seconds before each run (default 2)
  --quick                   3 s runs with 1 s warm-up
  --connections <list>      concurrent connections, comma-separated (default 50,1)
  --rounds <n>              run every target n times in turn and report each by its median run (default 1)
  --load-generator <name>   autocannon (default, in the bench's process) or wrk (Debian's wrk, a C
                            program: less of the two CPUs taken from the servers measured)
  --stream-chunk-delay <ms> gap between the fake's chunks in the streaming check (default 100)
  --cache                   also measure the gateway answering from its cache
  --messages                also measure POST /v1/messages (Anthropic format in, translated to the OpenAI-format fake)
  --fallback                also measure the gateway through a fallback whose first target is down
  --limits                  also measure the gateway with one usage-limits and one rate-limit policy
                            matching every request (counters in SQLite, rate windows in memory)
  --limits-redis <url>      with --limits, also with its counters and windows in this Redis
  --otlp                    also measure the gateway with OpenTelemetry traces on (OTEL_EXPORTER_OTLP_ENDPOINT
                            at a local sink that accepts and discards every export)
  --observability-off       also measure the gateway with the request log, metrics and access lines off
                            (GATEWAY_REQUEST_LOG=off GATEWAY_METRICS=off GATEWAY_LOG_LEVEL=warn)
  --portkey                 also measure @portkey-ai/gateway (installed under ~/.cache/switchyard-bench)
  --portkey-node <path>     run Portkey on this Node binary instead of the cached Node 20.20.2
  --gateway-stand-in        measure a second bare proxy in the gateway's place (to check the harness)
  --help`

export const parseBenchFlags = (args: ReadonlyArray<string>): BenchFlags => {
  const { values } = parseArgs({
    args: [...args],
    options: {
      duration: { type: "string" },
      warmup: { type: "string" },
      quick: { type: "boolean", default: false },
      connections: { type: "string", default: "50,1" },
      rounds: { type: "string", default: "1" },
      "load-generator": { type: "string", default: "autocannon" },
      "stream-chunk-delay": { type: "string", default: "100" },
      portkey: { type: "boolean", default: false },
      fallback: { type: "boolean", default: false },
      cache: { type: "boolean", default: false },
      messages: { type: "boolean", default: false },
      limits: { type: "boolean", default: false },
      "limits-redis": { type: "string" },
      otlp: { type: "boolean", default: false },
      "observability-off": { type: "boolean", default: false },
      "portkey-node": { type: "string" },
      "gateway-stand-in": { type: "boolean", default: false },
      help: { type: "boolean", default: false }
    }
  })
  return {
    durationSeconds: positive("--duration", values.duration ?? (values.quick ? "3" : "10")),
    warmupSeconds: nonNegative("--warmup", values.warmup ?? (values.quick ? "1" : "2")),
    connections: values.connections.split(",").map((count) => positive("--connections", count)),
    rounds: positive("--rounds", values.rounds),
    loadGenerator: oneOf("--load-generator", loadGenerators, values["load-generator"]),
    streamChunkDelayMs: nonNegative("--stream-chunk-delay", values["stream-chunk-delay"]),
    portkey: values.portkey,
    portkeyNode: values["portkey-node"],
    gatewayStandIn: values["gateway-stand-in"],
    fallback: values.fallback,
    cache: values.cache,
    messages: values.messages,
    limits: values.limits,
    limitsRedis: values["limits-redis"],
    otlp: values.otlp,
    observabilityOff: values["observability-off"],
    help: values.help
  }
}

const oneOf = <const A extends string>(flag: string, choices: ReadonlyArray<A>, text: string): A => {
  const choice = choices.find((name) => name === text)
  if (choice === undefined) throw new Error(`${flag} takes one of ${choices.join(", ")}, got "${text}"`)
  return choice
}

const nonNegative = (flag: string, text: string): number => {
  const value = Number(text)
  if (!Number.isInteger(value) || value < 0) throw new Error(`${flag} takes a whole number, got "${text}"`)
  return value
}

const positive = (flag: string, text: string): number => {
  const value = nonNegative(flag, text)
  if (value === 0) throw new Error(`${flag} must be above 0`)
  return value
}
