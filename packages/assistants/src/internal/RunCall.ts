import type { ServerSecret } from "@switchyard/auth"
import { type Gateway, Principal, RequestContext } from "@switchyard/core"
import type { ThreadRun } from "@switchyard/protocol"
import { Effect, Option } from "effect"
import * as RunRequest from "../RunRequest.ts"
import * as RunSelection from "../RunSelection.ts"
import type { Caller, ThreadStore } from "../ThreadStore.ts"
import { collect, decodeCompletion, decodeStepToolCalls, failureOf, type Live, type Outcome } from "./Outcome.ts"

/** A run's call of the gateway pipeline, over the store it reads the conversation from. */
export const make = (deps: {
  readonly store: ThreadStore["Service"]
  readonly gateway: Gateway.Gateway["Service"]
  readonly secret: ServerSecret.ServerSecret["Service"]
}): (
  workspaceId: string,
  run: ThreadRun.ThreadRun,
  caller: Caller,
  live: Live | undefined
) => Effect.Effect<Outcome> => {
  const { store, gateway, secret } = deps

  /** The function calls of this run's earlier rounds, with their outputs, oldest first. */
  const answeredRounds = (workspaceId: string, run: ThreadRun.ThreadRun) =>
    Effect.map(
      store.listSteps(workspaceId, run.thread_id, run.id, { limit: 100, order: "asc" }),
      (steps) =>
        steps.data.flatMap((step) => {
          if (step.type !== "tool_calls" || step.status !== "completed") return []
          const calls = Option.getOrElse(decodeStepToolCalls(step.step_details.tool_calls), () => [])
          return [calls.map((call) => ({
            id: call.id,
            name: call.function.name,
            arguments: call.function.arguments,
            output: call.function.output ?? ""
          }))]
        })
    )

  /** The pipeline call of one run, as its creator, with the assistant's or else the thread's selection. */
  const call = (workspaceId: string, run: ThreadRun.ThreadRun, caller: Caller, live: Live | undefined) =>
    Effect.gen(function*() {
      const threadHeaders = yield* RunSelection.open(
        secret,
        yield* store.threadSelection(workspaceId, run.thread_id)
      )
      // an assistant deleted since the run was created leaves the run on the thread's selection
      const own = yield* store.assistantSelection(workspaceId, run.assistant_id).pipe(
        Effect.catchTag("NotFound", () => Effect.succeed(null))
      )
      const assistantHeaders = own === null ? undefined : yield* RunSelection.open(secret, own)
      const headers = RunSelection.forRun(threadHeaders, assistantHeaders)
      const principal: Principal.Principal = {
        ...Principal.make({ keyId: caller.keyId, workspaceId, scopes: caller.scopes }),
        ...(caller.expiresAt === undefined ? {} : { expiresAt: caller.expiresAt })
      }
      const context = yield* RequestContext.inProcess({ principal, headers })
      const messages = yield* store.conversation(workspaceId, run.thread_id)
      const body = RunRequest.chatBody(run, messages, yield* answeredRounds(workspaceId, run))
      const answer = yield* gateway.handle({
        endpoint: "chat.completions",
        // followed runs stream from the provider, so the text reaches the follower as it is written
        body: live === undefined ? body : { ...body, stream: true, stream_options: { include_usage: true } },
        context
      })
      if (answer._tag === "Stream" && live !== undefined) {
        const streamed = yield* collect(answer.chunks, live)
        if (streamed.toolCalls.length > 0) {
          return { _tag: "ToolCalls", calls: streamed.toolCalls, usage: streamed.usage } as const
        }
        return {
          _tag: "Answered",
          text: streamed.text,
          announced: streamed.text !== "",
          finishReason: streamed.finishReason,
          usage: streamed.usage
        } as const
      }
      const completion = answer._tag === "Json" && answer.status === 200
        ? decodeCompletion(answer.body())
        : Option.none()
      if (Option.isNone(completion)) {
        return { _tag: "Failed", code: "server_error", message: `the provider answered ${answer.status}` } as const
      }
      const choice = completion.value.choices[0]
      const calls = choice?.message.tool_calls ?? []
      const reported = completion.value.usage
      const usage = reported === undefined || reported === null ? null : {
        prompt_tokens: reported.prompt_tokens,
        completion_tokens: reported.completion_tokens,
        total_tokens: reported.total_tokens
      }
      if (calls.length > 0) return { _tag: "ToolCalls", calls, usage } as const
      return {
        _tag: "Answered",
        text: choice?.message.content ?? "",
        announced: false,
        finishReason: choice?.finish_reason ?? null,
        usage
      } as const
    }).pipe(Effect.catch((error): Effect.Effect<Outcome> => Effect.succeed(failureOf(error))))

  return call
}
