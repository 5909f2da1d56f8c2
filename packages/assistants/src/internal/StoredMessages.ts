import { GatewayError } from "@switchyard/core"
import type { ThreadMessage } from "@switchyard/protocol"
import { Effect, Option } from "effect"
import type { ThreadStore } from "../ThreadStore.ts"
import * as ObjectTable from "./ObjectTable.ts"
import { newId, type ThreadTables, unix } from "./ThreadTables.ts"

/** A message's content as stored: text becomes a text part with no annotations. */
export const contentOf = (
  content: ThreadMessage.CreateThreadMessage["content"]
): ReadonlyArray<ThreadMessage.MessageContent> =>
  typeof content === "string"
    ? [{ type: "text", text: { value: content, annotations: [] } }]
    : content.map((part) => part.type === "text" ? { type: "text", text: { value: part.text, annotations: [] } } : part)

/** A caller's new message of the thread. */
export const newMessage = (
  threadId: string,
  body: ThreadMessage.CreateThreadMessage,
  at: number
): ThreadMessage.ThreadMessage => ({
  id: newId("msg"),
  object: "thread.message",
  created_at: at,
  thread_id: threadId,
  status: "completed",
  incomplete_details: null,
  completed_at: at,
  incomplete_at: null,
  role: body.role,
  content: contentOf(body.content),
  assistant_id: null,
  run_id: null,
  attachments: body.attachments ?? [],
  metadata: body.metadata ?? {}
})

/** The store's messages of a thread: a caller adds one only while no run of the thread is active. */
export const make = (
  tables: ThreadTables
): Pick<
  ThreadStore["Service"],
  | "createMessage"
  | "insertMessage"
  | "getMessage"
  | "listMessages"
  | "conversation"
  | "modifyMessage"
  | "updateMessage"
  | "deleteMessage"
> => {
  const { sql, messages, thread, lockedActiveRun } = tables

  const createMessage = (workspaceId: string, threadId: string, body: ThreadMessage.CreateThreadMessage) =>
    ObjectTable.transaction(
      sql,
      Effect.gen(function*() {
        yield* thread(workspaceId, threadId)
        const active = yield* lockedActiveRun(threadId)
        if (Option.isSome(active)) {
          return yield* new GatewayError.InvalidRequest({
            message: `thread_id: thread ${threadId} has an active run ${active.value.id} ` +
              `(${active.value.status}); add messages once it has ended, or cancel it`,
            param: "thread_id"
          })
        }
        const at = yield* unix
        return yield* messages.insert({ workspaceId, parentId: threadId }, newMessage(threadId, body, at), at)
      })
    )

  return {
    createMessage,
    insertMessage: (workspaceId, message) =>
      Effect.flatMap(
        unix,
        (at) => messages.insert({ workspaceId, parentId: message.thread_id }, message, at, { run_id: message.run_id })
      ),
    getMessage: (workspaceId, threadId, id) =>
      Effect.andThen(thread(workspaceId, threadId), messages.find({ workspaceId, parentId: threadId }, id)),
    listMessages: (workspaceId, threadId, query, runId) =>
      Effect.andThen(
        thread(workspaceId, threadId),
        messages.page(
          { workspaceId, parentId: threadId },
          query,
          runId === undefined ? sql`1 = 1` : sql`run_id = ${runId}`
        )
      ),
    conversation: (workspaceId, threadId) =>
      Effect.gen(function*() {
        const all: Array<ThreadMessage.ThreadMessage> = []
        let after: string | undefined
        for (;;) {
          const page = yield* messages.page(
            { workspaceId, parentId: threadId },
            { limit: 100, order: "asc", ...(after === undefined ? {} : { after }) }
          )
          all.push(...page.data)
          if (!page.has_more || page.last_id === null) return all
          after = page.last_id
        }
      }),
    modifyMessage: (workspaceId, threadId, id, body) =>
      Effect.gen(function*() {
        yield* thread(workspaceId, threadId)
        const found = yield* messages.find({ workspaceId, parentId: threadId }, id)
        if (body.metadata === undefined) return found
        return yield* messages.update({ workspaceId, parentId: threadId }, {
          ...found,
          metadata: body.metadata ?? {}
        })
      }),
    updateMessage: (workspaceId, message) => messages.update({ workspaceId, parentId: message.thread_id }, message),
    deleteMessage: (workspaceId, threadId, id) =>
      Effect.gen(function*() {
        yield* thread(workspaceId, threadId)
        yield* messages.find({ workspaceId, parentId: threadId }, id)
        yield* messages.remove({ workspaceId, parentId: threadId }, id)
        return { id, object: "thread.message.deleted" as const, deleted: true as const }
      })
  }
}
