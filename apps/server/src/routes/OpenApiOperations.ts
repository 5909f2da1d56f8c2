/**
 * What the route table does not say about a route, for /v1/openapi.json: its summary, the schema
 * its handler decodes the body with, its query, what it answers. Method, path, path parameters,
 * scope and the errors those imply come from the table itself (OpenApiDocument). Each area's
 * routes are described in its own module under `openapi/`.
 */
import * as AssistantOperations from "./openapi/AssistantOperations.ts"
import * as ConsoleOperations from "./openapi/ConsoleOperations.ts"
import * as FileOperations from "./openapi/FileOperations.ts"
import * as InferenceOperations from "./openapi/InferenceOperations.ts"
import * as LogOperations from "./openapi/LogOperations.ts"
import * as MessagesOperations from "./openapi/MessagesOperations.ts"
import type { Operation } from "./openapi/OperationShapes.ts"
import * as PolicyOperations from "./openapi/PolicyOperations.ts"
import * as PromptOperations from "./openapi/PromptOperations.ts"
import * as ResponsesOperations from "./openapi/ResponsesOperations.ts"
import * as ServiceOperations from "./openapi/ServiceOperations.ts"
import * as StoredObjectOperations from "./openapi/StoredObjectOperations.ts"

export { type Answer, type Operation, type SchemaName, schemas, tags } from "./openapi/OperationShapes.ts"

/** Every route's description, by `METHOD path` as in the route table. */
export const operations: Readonly<Record<string, Operation>> = {
  ...AssistantOperations.operations,
  ...ConsoleOperations.operations,
  ...FileOperations.operations,
  ...InferenceOperations.operations,
  ...LogOperations.operations,
  ...PolicyOperations.operations,
  ...PromptOperations.operations,
  ...MessagesOperations.operations,
  ...ResponsesOperations.operations,
  ...ServiceOperations.operations,
  ...StoredObjectOperations.operations
}
