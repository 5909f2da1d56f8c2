/**
 * What the pipeline's stages note about one request for its record (the request log), beside its
 * answer: today the results of its hooks and guardrails. The edge that records a request hands in
 * its own per-request object (`RequestContext.make({ notes })`), so a request whose pipeline
 * notes nothing costs nothing; a stage notes by pushing onto it.
 */

/** One check of a hook, as the log keeps it: never its `data`, which may quote the request or the answer. */
export interface CheckNote {
  readonly id: string
  readonly verdict: boolean
  /** The check's own summary (`2 of 3 words found…`). */
  readonly explanation: string
  /** Why the check could not decide (a webhook down, a timeout). */
  readonly error?: string
  /** Milliseconds. */
  readonly execution_time: number
}

/** One hook's result: a `before_request_hooks` / `input_guardrails` one, or an after one. */
export interface HookNote {
  readonly id: string
  readonly stage: "before" | "after"
  /** The config path of the target whose hook it is (`config.targets[1]`). */
  readonly target_path: string
  readonly type: "guardrail" | "mutator"
  /** Whether every check passed. */
  readonly verdict: boolean
  /** Whether this result blocked the request or the answer. */
  readonly deny: boolean
  /** Milliseconds. */
  readonly execution_time: number
  readonly checks: ReadonlyArray<CheckNote>
}

export interface RequestNotes {
  /**
   * In the order the hooks ended; results a stream's checks reach after it ended come last. Set
   * (empty) by a stage that may note results as it starts ({@link expectHooks}): a recorder reads
   * the results of a request that has it when it writes the record, and of one that has not,
   * knows there are none, without keeping its notes.
   */
  hooks?: Array<HookNote>
}

/** Marks the notes of a request whose hooks may note results, before the first one is noted. */
export const expectHooks = (notes: RequestNotes): void => {
  notes.hooks ??= []
}

/** Adds hook results to the request's notes. */
export const noteHooks = (notes: RequestNotes, hooks: ReadonlyArray<HookNote>): void => {
  if (hooks.length === 0) return
  if (notes.hooks === undefined) notes.hooks = [...hooks]
  else for (const hook of hooks) notes.hooks.push(hook)
}
