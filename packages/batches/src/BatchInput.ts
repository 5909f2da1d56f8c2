/**
 * The lines of a batch input file, checked one by one (extensions.md, "Files and batches"): the
 * common batch line `{custom_id, method: "POST", url, body}`, `custom_id` unique in the file, `url`
 * the batch's endpoint, and a body valid for that endpoint. Each problem names its 1-based line.
 *
 * @example
 * import { BatchInput } from "@switchyard/batches"
 *
 * const checker = BatchInput.makeChecker("/v1/chat/completions")
 * checker.check("{\"custom_id\":\"a\",\"method\":\"POST\",\"url\":\"/v1/embeddings\",\"body\":{}}", 1)
 * // { _tag: "Invalid", error: { code: "invalid_url", param: "url", line: 1, … } }
 */
import type { Endpoint } from "@switchyard/core"
import {
  type Batch,
  ChatCompletionRequest,
  CompletionRequest,
  EmbeddingRequest,
  type InvalidInput
} from "@switchyard/protocol"
import { Result } from "effect"

/** The same checks the live endpoints make of a body. */
const validators: Readonly<
  Record<Batch.CreateBatch["endpoint"], (body: unknown) => Result.Result<unknown, InvalidInput.InvalidInput>>
> = {
  "/v1/chat/completions": ChatCompletionRequest.decodeResult,
  "/v1/completions": CompletionRequest.decodeResult,
  "/v1/embeddings": EmbeddingRequest.decodeResult
}

/** A valid line: what the worker sends through the pipeline. */
export interface Request {
  readonly _tag: "Request"
  readonly line: number
  readonly customId: string
  readonly body: { readonly [key: string]: unknown }
}

/** An invalid line: its entry in `errors.data` (and, with its custom_id when it has one, in the error file). */
export interface Invalid {
  readonly _tag: "Invalid"
  readonly customId: string | null
  readonly error: {
    readonly code: string
    readonly message: string
    readonly param: string | null
    readonly line: number
  }
}

export type Checked = Request | Invalid

/** The gateway's name of the endpoint a batch calls. */
export const endpointOf = (url: Batch.CreateBatch["endpoint"]): Endpoint.Endpoint =>
  url === "/v1/chat/completions" ? "chat.completions" : url === "/v1/completions" ? "completions" : "embeddings"

const isObject = (value: unknown): value is { readonly [key: string]: unknown } =>
  typeof value === "object" && value !== null && !Array.isArray(value)

export interface Checker {
  /** Checks one non-blank line (`line` is 1-based in the file). */
  readonly check: (text: string, line: number) => Checked
}

/** A checker for one file of a batch calling `url`; it remembers the custom_ids it has seen. */
export const makeChecker = (url: Batch.CreateBatch["endpoint"]): Checker => {
  const seen = new Set<string>()
  const validate = validators[url]
  return {
    check: (text, line) => {
      const invalid = (
        code: string,
        param: string | null,
        message: string,
        customId: string | null = null
      ): Invalid => ({
        _tag: "Invalid",
        customId,
        error: { code, message, param, line }
      })
      let value: unknown
      try {
        value = JSON.parse(text)
      } catch {
        return invalid("invalid_json_line", null, `line ${line}: is not JSON`)
      }
      if (!isObject(value)) return invalid("invalid_json_line", null, `line ${line}: is not a JSON object`)
      const customId = value.custom_id
      if (typeof customId !== "string" || customId === "") {
        return invalid("missing_required_parameter", "custom_id", `line ${line}: custom_id must be a non-empty string`)
      }
      if (seen.has(customId)) {
        return invalid(
          "duplicate_custom_id",
          "custom_id",
          `line ${line}: custom_id ${JSON.stringify(customId)} is used by an earlier line`,
          customId
        )
      }
      seen.add(customId)
      if (value.method !== "POST") {
        return invalid("invalid_method", "method", `line ${line}: method must be POST`, customId)
      }
      if (value.url !== url) {
        return invalid(
          "invalid_url",
          "url",
          `line ${line}: url must be ${url}, the batch's endpoint (got ${JSON.stringify(value.url)})`,
          customId
        )
      }
      const body = value.body
      if (!isObject(body)) {
        return invalid("invalid_request", "body", `line ${line}: body must be a JSON object`, customId)
      }
      if (body.stream === true) {
        return invalid(
          "invalid_request",
          "body.stream",
          `line ${line}: body.stream: a batch line cannot stream`,
          customId
        )
      }
      const checked = validate(body)
      if (Result.isFailure(checked)) {
        const { message, param } = checked.failure
        return invalid(
          "invalid_request",
          param === null ? "body" : `body.${param}`,
          `line ${line}: body: ${message}`,
          customId
        )
      }
      return { _tag: "Request", line, customId, body }
    }
  }
}
