/**
 * One category of the fuzz: its requests generated from a seed and checked by the local-only
 * guard, sent 16 at a time until done or the process was replaced too often, the first failures
 * replayed and shrunk, and the answers counted for the report.
 */
import fc from "fast-check"
import { type Bystander, replayFailures, type Shown } from "./FailureReplay.ts"
import type { FuzzRequest, World } from "./FuzzRequest.ts"
import { many } from "./Lists.ts"
import { assertLocalOnly } from "./LocalOnlyGuard.ts"
import { type ReplaceableGateway, send, settle } from "./ReplaceableGateway.ts"
import type { Verdict } from "./Verdict.ts"

const CONCURRENCY = 16
/** A category that stops the process this often is cut short, so one cause cannot stall the suite. */
export const RESTARTS_PER_CATEGORY = 3

export interface Category {
  readonly name: string
  readonly runs: number
  readonly arbitrary: (world: World) => fc.Arbitrary<FuzzRequest>
}

export interface CategoryResult {
  readonly name: string
  readonly sent: number
  readonly notSent: number
  readonly byStatus: Readonly<Record<string, number>>
  /** The three slowest answered requests, to see what may hold the process. */
  readonly slowest: ReadonlyArray<Verdict>
  readonly failures: ReadonlyArray<Verdict>
  readonly shown: ReadonlyArray<Shown>
  /** Failures that passed when replayed alone. */
  readonly bystanders: ReadonlyArray<Bystander>
  readonly restarts: number
  readonly generatedMs: number
  readonly ms: number
}

/** Sends every request, CONCURRENCY at a time; a request not sent (the category was cut short) has no verdict. */
const sendAll = async (
  gateway: ReplaceableGateway,
  requests: ReadonlyArray<FuzzRequest>
): Promise<ReadonlyArray<Verdict | undefined>> => {
  const restartsBefore = gateway.restarts
  const verdicts: Array<Verdict | undefined> = requests.map(() => undefined)
  let next = 0
  const worker = async () => {
    while (next < requests.length && gateway.restarts - restartsBefore < RESTARTS_PER_CATEGORY) {
      const index = next++
      const request = requests[index]
      if (request !== undefined) verdicts[index] = await send(gateway, request)
    }
  }
  await Promise.all(many(CONCURRENCY, worker))
  return verdicts
}

/** How many answers were 2xx, 4xx, …, and how many requests got no answer or a broken connection. */
const countByStatus = (verdicts: ReadonlyArray<Verdict>): Readonly<Record<string, number>> => {
  const byStatus: Record<string, number> = {}
  for (const { answer } of verdicts) {
    const key = answer._tag === "Answered" ? `${Math.floor(answer.status / 100)}xx` : answer._tag
    byStatus[key] = (byStatus[key] ?? 0) + 1
  }
  return byStatus
}

export const runCategory = async (
  gateway: ReplaceableGateway,
  world: World,
  category: Category,
  seed: number
): Promise<CategoryResult> => {
  const started = performance.now()
  const arbitrary = category.arbitrary(world)
  // sampled through a property, so that run i here is run i of the replay in `replayFailures`
  const property = fc.asyncProperty<[FuzzRequest]>(arbitrary, async () => true)
  const requests = fc.sample(property, { seed, numRuns: category.runs }).map(([request]) => request)
  requests.forEach(assertLocalOnly)
  const generatedMs = Math.round(performance.now() - started)

  const restartsBefore = gateway.restarts
  const verdicts = await sendAll(gateway, requests)
  const { shown, bystanders } = await replayFailures(gateway, arbitrary, seed, verdicts)
  await settle(gateway)

  const done = verdicts.filter((verdict): verdict is Verdict => verdict !== undefined)
  return {
    name: category.name,
    sent: done.length,
    notSent: requests.length - done.length,
    byStatus: countByStatus(done),
    slowest: done.filter((v) => v.answer._tag === "Answered").sort((a, b) => b.answer.ms - a.answer.ms).slice(0, 3),
    failures: done.filter((verdict) => verdict.problems.length > 0),
    shown,
    bystanders,
    restarts: gateway.restarts - restartsBefore,
    generatedMs,
    ms: Math.round(performance.now() - started)
  }
}
