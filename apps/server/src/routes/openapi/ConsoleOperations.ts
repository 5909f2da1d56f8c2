/** The console page and its assets, and the circuits it shows (which only it and operators read). */
import { json, type Operation } from "./OperationShapes.ts"

export const operations: Readonly<Record<string, Operation>> = {
  "GET /console": {
    tag: "Console",
    summary: "The console",
    description: "A web page to see requests, usage, policies, circuits, integrations, configs and API keys; " +
      "signed in with an API key kept in the browser tab's sessionStorage. Loads nothing from another host.",
    answer: { description: "The console's page.", mediaType: "text/html" }
  },
  "GET /console/console.js": {
    tag: "Console",
    summary: "The console's script",
    answer: { description: "The console, built with Preact and Vite.", mediaType: "text/javascript" }
  },
  "GET /console/console.css": {
    tag: "Console",
    summary: "The console's style sheet",
    answer: { description: "The console's styles.", mediaType: "text/css" }
  },
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
