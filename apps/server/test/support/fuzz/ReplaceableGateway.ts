/**
 * The gateway process under fuzz, and sending to it: every request gets one deadline, and a
 * process that then stops answering /health is replaced, so one cause cannot stall the suite.
 * Sends wait while it is checked or replaced, and are tracked until judged.
 */
import * as GatewayProcess from "../GatewayProcess.ts"
import { type FuzzRequest, viaFake } from "./FuzzRequest.ts"
import { validChatText } from "./InferenceBodies.ts"
import { chatSpec } from "./InferenceSpecs.ts"
import { type Answer, judge, type Verdict } from "./Verdict.ts"

/** The longest any answer may take (extensions.md, "Limits of input": no request can hold the process). */
export const ANSWER_WITHIN_MS = 2_000

export interface ReplaceableGateway {
  current: GatewayProcess.GatewayProcess
  /** Every process started, for the log lines of a trace id. */
  readonly all: Array<GatewayProcess.GatewayProcess>
  restarts: number
  /** Set while the process is being checked or replaced; sends wait for it. */
  recovering: Promise<void> | undefined
  /** Sends not yet judged, so that a category ends only when its last request has. */
  readonly inFlight: Set<Promise<Verdict>>
  readonly fakeUrl: string
}

/** A gateway that has answered one request through the fake, so no fuzz request pays for the first. */
const startProcess = async (fakeUrl: string): Promise<GatewayProcess.GatewayProcess> => {
  const started = await GatewayProcess.start()
  await fetch(`${started.baseUrl}${chatSpec.path}`, {
    method: "POST",
    headers: viaFake({ fakeUrl, configId: "" }),
    body: validChatText,
    signal: AbortSignal.timeout(10_000)
  }).then((response) => response.text())
  return started
}

/** A first process whose only upstream is the fake at `fakeUrl`. */
export const start = async (fakeUrl: string): Promise<ReplaceableGateway> => {
  const first = await startProcess(fakeUrl)
  return { current: first, all: [first], restarts: 0, recovering: undefined, inFlight: new Set(), fakeUrl }
}

let serial = 0
export const send = (gateway: ReplaceableGateway, request: FuzzRequest): Promise<Verdict> => {
  const sending = sendNow(gateway, request)
  gateway.inFlight.add(sending)
  return sending.finally(() => gateway.inFlight.delete(sending))
}

const sendNow = async (gateway: ReplaceableGateway, request: FuzzRequest): Promise<Verdict> => {
  while (gateway.recovering !== undefined) await gateway.recovering
  const headers = { "x-gateway-trace-id": `fuzz-${++serial}`, ...request.headers }
  const traceId = headers["x-gateway-trace-id"]
  const started = performance.now()
  const ms = () => Math.round(performance.now() - started)
  try {
    const response = await fetch(`${gateway.current.baseUrl}${request.path}`, {
      method: request.method,
      headers,
      body: request.body,
      signal: AbortSignal.timeout(ANSWER_WITHIN_MS)
    })
    const text = await response.text()
    return judge(request, { _tag: "Answered", status: response.status, text, ms: ms() }, traceId)
  } catch (error) {
    const timedOut = error instanceof DOMException && (error.name === "TimeoutError" || error.name === "AbortError")
    const cause = error instanceof Error && error.cause instanceof Error ? error.cause.message : String(error)
    const answer: Answer = timedOut ? { _tag: "NoAnswer", ms: ms() } : { _tag: "Broken", cause, ms: ms() }
    // timed before recovering, which may wait for the process or replace it
    if (timedOut) await recover(gateway)
    return judge(request, answer, traceId)
  }
}

/** Waits for every send and recovery still running (an interrupted shrink may leave one behind). */
export const settle = async (gateway: ReplaceableGateway): Promise<void> => {
  while (gateway.inFlight.size > 0 || gateway.recovering !== undefined) {
    await Promise.all([...gateway.inFlight, gateway.recovering])
  }
}

const healthy = (process: GatewayProcess.GatewayProcess) =>
  fetch(`${process.baseUrl}/health`, { signal: AbortSignal.timeout(1_000) }).then((r) => r.ok, () => false)

/** After a request got no answer: the process answers /health within ~2.5 s, or is replaced. */
export const recover = (gateway: ReplaceableGateway): Promise<void> => {
  gateway.recovering ??= (async () => {
    for (let attempt = 0; attempt < 2; attempt++) {
      if (await healthy(gateway.current)) return
      await new Promise((resolve) => setTimeout(resolve, 250))
    }
    gateway.restarts++
    await gateway.current.stop("SIGKILL")
    gateway.current = await startProcess(gateway.fakeUrl)
    gateway.all.push(gateway.current)
  })().finally(() => {
    gateway.recovering = undefined
  })
  return gateway.recovering
}
