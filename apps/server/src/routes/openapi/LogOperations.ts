/** The request log: every inference request the gateway answered, per workspace. */
import { LogQuery } from "@switchyard/request-log"
import { json, type Operation } from "./OperationShapes.ts"

const record = "A record has `id`, `object: \"request_log\"`, `created_at` (unix seconds), `trace_id`, `route` " +
  "(`POST /v1/chat/completions`…, or `POST /v1/prompts/:id/completions`, `assistant run`, `batch line` for the " +
  "calls the gateway makes in process), `endpoint`, `status`, `stream`, `provider`, `model`, `target_path` (the " +
  "config path of the target that answered, e.g. `config.targets[1]`), `usage` (`prompt_tokens`, " +
  "`completion_tokens`, `total_tokens`, or null), `cost_usd` (at the model catalog's prices; 0 for a cache hit, " +
  "null for a model it does not price), `latency_ms`, `time_to_first_token_ms` (streams), `cache_status`, " +
  "`retries`, `api_key_id`, `workspace_id`, `metadata` (`x-gateway-metadata`), `hook_results` (each hook's and " +
  "guardrail's `id`, `stage` `before` or `after` the provider, `target_path`, `type`, `verdict`, `deny`, " +
  "`execution_time` in ms and its `checks` with `id`, `verdict`, `explanation`, `error`, `execution_time`; never " +
  "a check's data; empty when none ran), and `request_body`, " +
  "`response_body`: null unless the gateway runs with `GATEWAY_LOG_BODIES=true`; a body longer than 65,536 " +
  "characters of JSON is the string of its first 65,536."

export const operations: Readonly<Record<string, Operation>> = {
  "GET /v1/logs": {
    tag: "Logs",
    summary: "List request log records",
    description: "The caller's workspace's request log, newest first (`order=asc` for oldest first), paged with " +
      "`limit` (1 to 100, default 20), `after` and `before`; filtered by `trace_id`, `status`, `provider`, `model`, " +
      "`api_key_id`, and `from`, `to` (unix seconds, both included). A bad value is a 400 naming the field. " +
      "Records are written in batches within a second of the request's end; this route writes what is waiting " +
      "first, so a request just answered is listed. Kept `GATEWAY_LOG_RETENTION_DAYS` (default 30). " + record,
    query: LogQuery.LogQuery,
    answer: json("The records, in the list shape.", "List")
  },
  "GET /v1/logs/:id": {
    tag: "Logs",
    summary: "Get a request log record",
    description: "One record of the caller's workspace (another workspace's is a 404), with `feedback`: what " +
      "`POST /v1/feedback` and hooks recorded against its trace id, oldest first. " + record,
    answer: json("The record with its feedback.")
  }
}
