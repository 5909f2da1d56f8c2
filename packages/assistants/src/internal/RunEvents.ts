import { Effect, Queue, Stream } from "effect"

/** One server-sent event of a streamed run, named as the common assistants format names them. */
export interface RunEvent {
  readonly event: string
  readonly data: unknown
}

/** The events after which a run's stream ends: the run has ended or waits on its caller. */
const FINAL_EVENTS: ReadonlySet<string> = new Set([
  "thread.run.completed",
  "thread.run.incomplete",
  "thread.run.failed",
  "thread.run.cancelled",
  "thread.run.expired",
  "thread.run.requires_action",
  "error"
])

/** The events of the runs this process works on, each sent to the stream that follows it, if any. */
export const make = () => {
  // the streams that follow a run this process works on, by run id
  const listeners = new Map<string, Queue.Queue<RunEvent>>()
  const emit = (runId: string, event: string, data: unknown) => {
    const queue = listeners.get(runId)
    return queue === undefined ? Effect.void : Effect.asVoid(Queue.offer(queue, { event, data }))
  }
  /** Follows a run from now on, until its stream's last event. */
  const follow = (runId: string) =>
    Effect.map(Queue.unbounded<RunEvent>(), (queue) => {
      listeners.set(runId, queue)
      return Stream.fromQueue(queue).pipe(
        Stream.takeUntil((event) => FINAL_EVENTS.has(event.event)),
        Stream.ensuring(Effect.sync(() => listeners.delete(runId)))
      )
    })
  /** Whether a stream follows the run: its call then streams from the provider. */
  const followed = (runId: string) => listeners.has(runId)

  return { emit, follow, followed }
}

export type RunEvents = ReturnType<typeof make>
