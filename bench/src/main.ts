/**
 * `node bench/src/main.ts [--quick] [--portkey] …` (see BenchFlags.ts): the gateway against a bare Node
 * proxy, both in front of the fake OpenAI upstream, every server a child process on 127.0.0.1.
 */
import { Behaviour, FakeOpenAI } from "@switchyard/fake-providers"
import { availableParallelism, cpus } from "node:os"
import { join } from "node:path"
import { parseBenchFlags, usage } from "./BenchFlags.ts"
import { chatRequest } from "./ChatRequestBody.ts"
import { ChildProcessGroup } from "./ChildProcessGroup.ts"
import { driveAutocannon, type LoadResult, medianRun, runLoad, type Target } from "./LoadRun.ts"
import { startOtlpSink } from "./OtlpSink.ts"
import { installPortkey, startPortkey } from "./PortkeyGateway.ts"
import {
  compareWithBaseline,
  type Comparison,
  comparisonTable,
  loadTable,
  streamingTable,
  writeResultsFile
} from "./ResultsReport.ts"
import {
  gatewayEntry,
  gatewayExists,
  repoRoot,
  startBareProxy,
  startFakeUpstream,
  startGateway
} from "./ServerProcesses.ts"
import { checkStreaming, describeError, type StreamingResult } from "./StreamingCheck.ts"
import {
  addPolicies,
  bareProxyTarget,
  gatewayCacheTarget,
  gatewayFallbackTarget,
  gatewayMessagesTarget,
  gatewayTarget,
  portkeyTarget
} from "./Targets.ts"
import { driveWrk, wrkInstalled } from "./WrkRun.ts"

const flags = parseBenchFlags(process.argv.slice(2))
if (flags.help) {
  console.log(usage)
  process.exit(0)
}

if (flags.loadGenerator === "wrk" && !(await wrkInstalled())) {
  console.error("--load-generator wrk: wrk is not on the PATH (Debian: apt-get install wrk)")
  process.exit(1)
}
const drive = flags.loadGenerator === "wrk" ? driveWrk : driveAutocannon

const baseline = "bare node proxy"
const group = new ChildProcessGroup()
group.stopOnExit()
const skipped: Array<string> = []
const note = (message: string) => {
  skipped.push(message)
  console.log(`! ${message}`)
}

/** Each target is started twice over: against the fast fake (load) and against a slow one (streaming). */
interface Contender {
  readonly load: Target
  readonly streaming: (slowBaseUrl: string) => Promise<Target>
}

const slowFake = await FakeOpenAI.start({ record: false })
slowFake.setDefault(Behaviour.slowStream(flags.streamChunkDelayMs))

try {
  const upstream = await startFakeUpstream(group)
  const upstreamBaseUrl = `${upstream.origin}/v1`
  const contenders: Array<Contender> = []

  const bare = await startBareProxy(group, baseline, upstream.origin)
  contenders.push({
    load: bareProxyTarget(baseline, bare),
    streaming: async () =>
      bareProxyTarget(baseline, await startBareProxy(group, "streaming proxy", slowFake.baseUrl.replace(/\/v1$/, "")))
  })

  if (flags.gatewayStandIn) {
    const name = "gateway stand-in (bare proxy)"
    const standIn = await startBareProxy(group, name, upstream.origin)
    contenders.push({
      load: bareProxyTarget(name, standIn),
      streaming: async () =>
        bareProxyTarget(name, await startBareProxy(group, name, slowFake.baseUrl.replace(/\/v1$/, "")))
    })
  } else if (gatewayExists()) {
    const gateway = await startGateway(group)
    contenders.push({
      load: gatewayTarget(gateway, upstreamBaseUrl),
      streaming: async (slowBaseUrl) => gatewayTarget(gateway, slowBaseUrl)
    })
    if (flags.cache) {
      contenders.push({
        load: gatewayCacheTarget(gateway, upstreamBaseUrl),
        streaming: async (slowBaseUrl) => gatewayCacheTarget(gateway, slowBaseUrl)
      })
    }
    if (flags.limits) {
      const variants = [
        { name: "switchyard + limits (sqlite)", env: {} },
        ...(flags.limitsRedis === undefined
          ? []
          : [{ name: "switchyard + limits (redis)", env: { REDIS_URL: flags.limitsRedis } }])
      ]
      for (const variant of variants) {
        const limited = await startGateway(group, variant.env)
        await addPolicies(limited)
        contenders.push({
          load: gatewayTarget(limited, upstreamBaseUrl, variant.name),
          streaming: async (slowBaseUrl) => gatewayTarget(limited, slowBaseUrl, variant.name)
        })
      }
    }
    if (flags.otlp) {
      const sink = await startOtlpSink()
      const name = "switchyard + otlp traces"
      const traced = await startGateway(group, { OTEL_EXPORTER_OTLP_ENDPOINT: sink.url })
      contenders.push({
        load: gatewayTarget(traced, upstreamBaseUrl, name),
        streaming: async (slowBaseUrl) => gatewayTarget(traced, slowBaseUrl, name)
      })
    }
    if (flags.observabilityOff) {
      const name = "switchyard, observability off"
      const quiet = await startGateway(group, {
        GATEWAY_REQUEST_LOG: "off",
        GATEWAY_METRICS: "off",
        GATEWAY_LOG_LEVEL: "warn"
      })
      contenders.push({
        load: gatewayTarget(quiet, upstreamBaseUrl, name),
        streaming: async (slowBaseUrl) => gatewayTarget(quiet, slowBaseUrl, name)
      })
    }
    if (flags.messages) {
      contenders.push({
        load: gatewayMessagesTarget(gateway, upstreamBaseUrl),
        streaming: async (slowBaseUrl) => gatewayMessagesTarget(gateway, slowBaseUrl)
      })
    }
    if (flags.fallback) {
      contenders.push({
        load: gatewayFallbackTarget(gateway, upstreamBaseUrl),
        streaming: async (slowBaseUrl) => gatewayFallbackTarget(gateway, slowBaseUrl)
      })
    }
  } else {
    note(`gateway skipped: ${gatewayEntry} is not built (npx pnpm bench builds it first)`)
  }

  if (flags.portkey) {
    try {
      console.log("installing Portkey (cached after the first run)…")
      await installPortkey()
      const portkey = await startPortkey(group, flags.portkeyNode)
      contenders.push({
        load: portkeyTarget(portkey, upstreamBaseUrl),
        streaming: async (slowBaseUrl) => portkeyTarget(portkey, slowBaseUrl)
      })
    } catch (error) {
      note(`portkey skipped: ${error instanceof Error ? error.message : String(error)}`)
    }
  }

  const body = JSON.stringify(chatRequest)
  const load: Array<LoadResult> = []
  const comparisons: Array<Comparison> = []
  for (const connections of flags.connections) {
    // each round runs every target once, in turn, so that a slow spell of the machine falls on
    // all of them rather than on one; each target is reported by its median round
    const rounds: Array<Array<LoadResult>> = contenders.map(() => [])
    for (let round = 1; round <= flags.rounds; round++) {
      for (const [index, contender] of contenders.entries()) {
        console.log(
          `${contender.load.name}: ${connections} connections, ${flags.warmupSeconds}s warm-up + ${flags.durationSeconds}s` +
            (flags.rounds > 1 ? ` (round ${round} of ${flags.rounds})` : "")
        )
        rounds[index]?.push(
          await runLoad(contender.load, {
            body: contender.load.request === undefined ? body : JSON.stringify(contender.load.request),
            connections,
            durationSeconds: flags.durationSeconds,
            warmupSeconds: flags.warmupSeconds,
            drive
          })
        )
      }
    }
    for (const results of rounds) {
      const median = medianRun(results)
      if (median !== undefined) load.push(median)
    }
    comparisons.push(...compareWithBaseline(rounds, baseline))
  }

  const streaming: Array<StreamingResult> = []
  for (const contender of contenders) {
    try {
      const target = await contender.streaming(slowFake.baseUrl)
      const timeoutMs = 30_000 + 50 * flags.streamChunkDelayMs
      streaming.push(await checkStreaming(target, { ...(target.request ?? chatRequest), stream: true }, timeoutMs))
    } catch (error) {
      note(`streaming check of ${contender.load.name} failed: ${describeError(error)}`)
    }
  }

  console.log(
    `\nLoad (${flags.loadGenerator}, ${flags.durationSeconds}s per run after ${flags.warmupSeconds}s warm-up, ` +
      `${availableParallelism()} CPUs` +
      (flags.rounds > 1 ? `; each target's median of ${flags.rounds} rounds by req/s)\n` : ")\n")
  )
  console.log(loadTable(load))
  if (comparisons.length > 0) console.log(`\n${comparisonTable(comparisons, baseline)}`)
  console.log(`\nStreaming (upstream writes an SSE event every ${flags.streamChunkDelayMs} ms)\n`)
  console.log(streamingTable(streaming))
  for (const message of skipped) console.log(`\n! ${message}`)

  const file = writeResultsFile(join(repoRoot, "bench/results"), {
    startedAt: new Date().toISOString(),
    machine: { cpus: availableParallelism(), cpuModel: cpus()[0]?.model ?? "unknown", node: process.version },
    flags,
    request: chatRequest,
    load,
    comparisons,
    streaming,
    skipped
  })
  console.log(`\nresults: ${file}`)
} finally {
  await slowFake.close()
  await group.stopAll()
}
