import type { Assistant } from "@switchyard/protocol"
import { Effect, Schema } from "effect"
import type { ThreadStore } from "../ThreadStore.ts"
import * as ObjectTable from "./ObjectTable.ts"
import { newId, type ThreadTables, unix } from "./ThreadTables.ts"

const decodeAssistantSelection = Schema.decodeUnknownEffect(
  Schema.Array(Schema.Struct({ selection: Schema.NullOr(Schema.String) }))
)

/** What an assistant shows of its own selection: names and a stored config's id, never a key. */
const shownSelection = (body: Assistant.ModifyAssistant) => ({
  provider: body.provider ?? null,
  integration: body.integration ?? null,
  config: typeof body.config === "string" ? body.config : null
})

/** The store's assistants: each with its own sealed provider selection, or none (the thread's). */
export const make = (
  tables: ThreadTables
): Pick<
  ThreadStore["Service"],
  | "createAssistant"
  | "getAssistant"
  | "listAssistants"
  | "modifyAssistant"
  | "assistantSelection"
  | "deleteAssistant"
> => {
  const { sql, assistants, ensureWorkspace } = tables
  return {
    createAssistant: (workspaceId, body, selection = null) =>
      Effect.gen(function*() {
        const at = yield* unix
        yield* ensureWorkspace(workspaceId, at)
        const assistant: Assistant.Assistant = {
          id: newId("asst"),
          object: "assistant",
          created_at: at,
          name: body.name ?? null,
          description: body.description ?? null,
          model: body.model,
          instructions: body.instructions ?? null,
          tools: body.tools ?? [],
          metadata: body.metadata ?? {},
          temperature: body.temperature ?? null,
          top_p: body.top_p ?? null,
          response_format: body.response_format ?? "auto",
          ...shownSelection(body)
        }
        return yield* assistants.insert({ workspaceId }, assistant, at, { selection })
      }),
    getAssistant: (workspaceId, id) => assistants.find({ workspaceId }, id),
    listAssistants: (workspaceId, query) => assistants.page({ workspaceId }, query),
    modifyAssistant: (workspaceId, id, body, selection) =>
      Effect.gen(function*() {
        const found = yield* assistants.find({ workspaceId }, id)
        const changed: Assistant.Assistant = {
          ...found,
          ...(body.model === undefined ? {} : { model: body.model }),
          ...(body.name === undefined ? {} : { name: body.name }),
          ...(body.description === undefined ? {} : { description: body.description }),
          ...(body.instructions === undefined ? {} : { instructions: body.instructions }),
          ...(body.tools === undefined ? {} : { tools: body.tools }),
          ...(body.metadata === undefined ? {} : { metadata: body.metadata ?? {} }),
          ...(body.temperature === undefined ? {} : { temperature: body.temperature }),
          ...(body.top_p === undefined ? {} : { top_p: body.top_p }),
          ...(body.response_format === undefined ? {} : { response_format: body.response_format ?? "auto" }),
          ...(selection === undefined ? {} : shownSelection(body))
        }
        return yield* assistants.update({ workspaceId }, changed, selection === undefined ? {} : { selection })
      }),
    assistantSelection: (workspaceId, id) =>
      Effect.gen(function*() {
        const rows = yield* ObjectTable.internal(
          sql`SELECT selection FROM assistants WHERE workspace_id = ${workspaceId} AND id = ${id}`.pipe(
            Effect.flatMap(decodeAssistantSelection)
          )
        )
        const [row] = rows
        if (row === undefined) return yield* ObjectTable.notFound("assistant", id)
        return row.selection
      }),
    deleteAssistant: (workspaceId, id) =>
      Effect.gen(function*() {
        yield* assistants.find({ workspaceId }, id)
        yield* assistants.remove({ workspaceId }, id)
        return { id, object: "assistant.deleted" as const, deleted: true as const }
      })
  }
}
