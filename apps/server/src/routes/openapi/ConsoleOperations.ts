/** The circuits, which operators (and the console) read. */
import { json, type Operation } from "./OperationShapes.ts"

export const operations: Readonly<Record<string, Operation>> = {
  "GET /v1/circuits": {
    tag: "Circuits",
    summary: "List circuits",
    description: "Every circuit this process ran an attempt through in the last hour, the most recently used " +
      "first: `id` (the circuit's key), `provider`, `host`, `model`, `credential_id` (a hash, never the " +
      "credential), `state` (`closed`, `open`, `half_open`; `unknown` when the store cannot be read), " +
      "`retry_after_ms`, `probing`, `consecutive_openings`, and what this process saw: `failures` in a row, " +
      "`opened_at`, `last_attempt_at` (unix seconds). With Redis the state is the one every replica shares; a " +
      "circuit only another replica used is not listed.",
    answer: json("The circuits, in the list shape.", "List")
  }
}
