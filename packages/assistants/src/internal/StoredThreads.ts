import type { Thread } from "@switchyard/protocol"
import { Effect, Schema } from "effect"
import type { ThreadStore } from "../ThreadStore.ts"
import * as ObjectTable from "./ObjectTable.ts"
import { newMessage } from "./StoredMessages.ts"
import { newId, type ThreadTables, unix } from "./ThreadTables.ts"

const Selection = Schema.Struct({ selection: Schema.String })
const decodeSelection = Schema.decodeUnknownEffect(Schema.Array(Selection))

/** The store's threads: each created with its first messages and its sealed provider selection. */
export const make = (
  tables: ThreadTables
): Pick<ThreadStore["Service"], "createThread" | "getThread" | "threadSelection" | "modifyThread" | "deleteThread"> => {
  const { sql, threads, messages, ensureWorkspace, thread } = tables
  return {
    createThread: (workspaceId, body, selection) =>
      ObjectTable.transaction(
        sql,
        Effect.gen(function*() {
          const at = yield* unix
          yield* ensureWorkspace(workspaceId, at)
          const created: Thread.Thread = {
            id: newId("thread"),
            object: "thread",
            created_at: at,
            metadata: body.metadata ?? {},
            tool_resources: {}
          }
          yield* threads.insert({ workspaceId }, created, at, { selection })
          for (const message of body.messages ?? []) {
            yield* messages.insert({ workspaceId, parentId: created.id }, newMessage(created.id, message, at), at)
          }
          return created
        })
      ),
    getThread: thread,
    threadSelection: (workspaceId, id) =>
      Effect.gen(function*() {
        const rows = yield* ObjectTable.internal(
          sql`SELECT selection FROM threads WHERE workspace_id = ${workspaceId} AND id = ${id}`.pipe(
            Effect.flatMap(decodeSelection)
          )
        )
        const [row] = rows
        if (row === undefined) return yield* ObjectTable.notFound("thread", id)
        return row.selection
      }),
    modifyThread: (workspaceId, id, body) =>
      Effect.gen(function*() {
        const found = yield* thread(workspaceId, id)
        if (body.metadata === undefined) return found
        return yield* threads.update({ workspaceId }, { ...found, metadata: body.metadata ?? {} })
      }),
    deleteThread: (workspaceId, id) =>
      Effect.gen(function*() {
        yield* thread(workspaceId, id)
        // the database removes its messages, runs and steps with it (ON DELETE CASCADE)
        yield* threads.remove({ workspaceId }, id)
        return { id, object: "thread.deleted" as const, deleted: true as const }
      })
  }
}
