/**
 * What follows a category's failures: the first few are replayed alone, on a process that
 * answers, to tell a cause from a bystander of a blocked process, and each one that still fails
 * is shrunk with fast-check while it fails the same way. Replays are bounded in count, time and
 * process restarts, so a category that stops the process cannot stall the suite.
 */
import fc from "fast-check"
import type { FuzzRequest } from "./FuzzRequest.ts"
import { many } from "./Lists.ts"
import { assertLocalOnly } from "./LocalOnlyGuard.ts"
import { recover, type ReplaceableGateway, send } from "./ReplaceableGateway.ts"
import type { Verdict } from "./Verdict.ts"

/** Failures replayed, shrunk and shown per category, and what replaying may cost. */
const SHOWN_PER_CATEGORY = 4
const MAX_REPLAYS = 10
const SHRINK_BUDGET_MS = 6_000
const REPLAY_BUDGET_MS = 30_000
const REPLAY_RESTARTS = 2

type Replay = "fails alone" | "passes alone" | "not replayed"

/** A failure shown in the report: as generated, and shrunk when it failed alone too. */
export interface Shown {
  readonly original: Verdict
  readonly replay: Replay
  readonly shrunk: Verdict | undefined
  readonly shrinks: number
}

/** A failure that passed when replayed alone, and how it went then. */
export interface Bystander {
  readonly original: Verdict
  readonly alone: Verdict | undefined
}

/** The indexes of the failures, one kind after another in turn, so that each kind gets its causes shown. */
const replayOrder = (verdicts: ReadonlyArray<Verdict | undefined>): ReadonlyArray<number> => {
  const failing = verdicts.flatMap((verdict, index) => ((verdict?.problems.length ?? 0) > 0 ? [index] : []))
  const kinds = [...new Set(failing.map((index) => verdicts[index]?.problems[0]?.kind))]
  const queues = kinds.map((kind) => failing.filter((index) => verdicts[index]?.problems[0]?.kind === kind))
  return many(
    Math.max(0, ...queues.map((queue) => queue.length)),
    (round) => queues.flatMap((q) => q[round] ?? [])
  ).flat()
}

/** Replays the first failures of a category whose run `i` was run `i` of `seed`, and shrinks those that fail alone. */
export const replayFailures = async (
  gateway: ReplaceableGateway,
  arbitrary: fc.Arbitrary<FuzzRequest>,
  seed: number,
  verdicts: ReadonlyArray<Verdict | undefined>
): Promise<{ readonly shown: ReadonlyArray<Shown>; readonly bystanders: ReadonlyArray<Bystander> }> => {
  const shown: Array<Shown> = []
  const bystanders: Array<Bystander> = []
  const replayUntil = performance.now() + REPLAY_BUDGET_MS
  const budget = { restarts: REPLAY_RESTARTS }
  for (const index of replayOrder(verdicts).slice(0, MAX_REPLAYS)) {
    const original = verdicts[index]
    if (original === undefined || shown.length >= SHOWN_PER_CATEGORY || performance.now() > replayUntil) break
    // without restarts left, a failure that holds the process cannot be told from its bystanders
    if (budget.restarts <= 0 && shown.length > 0) break
    const { alone, ...replayed } = await shrink(gateway, arbitrary, seed, index, original, budget)
    if (replayed.replay === "passes alone") bystanders.push({ original, alone })
    else shown.push({ original, ...replayed })
  }
  return { shown, bystanders }
}

/**
 * Replays run `index` of the seed alone, on a process that answers, and shrinks it while it fails
 * the same way; `budget` holds the restarts the category may still spend on replays.
 */
const shrink = async (
  gateway: ReplaceableGateway,
  arbitrary: fc.Arbitrary<FuzzRequest>,
  seed: number,
  index: number,
  original: Verdict,
  budget: { restarts: number }
): Promise<Omit<Shown, "original"> & { readonly alone: Verdict | undefined }> => {
  if (budget.restarts <= 0) return { replay: "not replayed", shrunk: undefined, shrinks: 0, alone: undefined }
  const spend = async <A>(run: () => Promise<A>): Promise<A> => {
    const before = gateway.restarts
    const result = await run()
    budget.restarts -= gateway.restarts - before
    return result
  }
  // a process still held by an earlier request would blame this one
  await spend(() => recover(gateway))
  const kind = original.problems[0]?.kind
  let last: Verdict | undefined
  let alone: Verdict | undefined
  const details = await fc.check(
    fc.asyncProperty(arbitrary, async (request) => {
      assertLocalOnly(request)
      // out of restarts, shrinking stops where it is; the first replay is always sent
      if (alone !== undefined && budget.restarts <= 0) return true
      const verdict = await spend(() => send(gateway, request))
      alone ??= verdict
      const fails = verdict.problems.some((problem) => problem.kind === kind)
      if (fails) last = verdict
      return !fails
    }),
    // numRuns 1: the run at `path` and its shrinks only, no further runs after it
    { seed, path: String(index), numRuns: 1, plugins: [fc.interruptAfterTimeLimit(SHRINK_BUDGET_MS)] }
  )
  const replay = details.failed ? "fails alone" : "passes alone"
  return { replay, shrunk: last, shrinks: details.numShrinks, alone }
}
