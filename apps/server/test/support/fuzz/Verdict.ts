/**
 * The checks on every answer: it came, and within the deadline; it is no 5xx; when it is not a
 * 2xx, its body is the error envelope; and a request the spec refuses was not answered 2xx.
 */
import type { FuzzRequest } from "./FuzzRequest.ts"
import { isRecord, parsedJson } from "./JsonText.ts"

export type Answer =
  | { readonly _tag: "Answered"; readonly status: number; readonly text: string; readonly ms: number }
  | { readonly _tag: "NoAnswer"; readonly ms: number }
  | { readonly _tag: "Broken"; readonly cause: string; readonly ms: number }

type ProblemKind =
  | "no answer within 2 s"
  | "connection broken"
  | "5xx"
  | "not the error envelope"
  | "accepted, must be refused"

export interface Verdict {
  readonly request: FuzzRequest
  readonly answer: Answer
  readonly traceId: string
  readonly problems: ReadonlyArray<{ readonly kind: ProblemKind; readonly detail: string }>
}

const envelopeProblem = (text: string): string | undefined => {
  const parsed = parsedJson(text)
  if (parsed === undefined) return "the body is not JSON"
  const error = isRecord(parsed.value) ? parsed.value.error : undefined
  if (!isRecord(error)) return "no `error` object"
  const { message, type, param, code } = error
  if (typeof message !== "string" || message.trim() === "") return "error.message is not a non-empty string"
  if (typeof type !== "string") return "error.type is not a string"
  if (!("param" in error) || !(param === null || typeof param === "string")) return "error.param is missing"
  if (!("code" in error) || !(code === null || typeof code === "string")) return "error.code is missing"
  return undefined
}

export const judge = (request: FuzzRequest, answer: Answer, traceId: string): Verdict => {
  const problems: Array<Verdict["problems"][number]> = []
  if (answer._tag === "NoAnswer") problems.push({ kind: "no answer within 2 s", detail: "" })
  else if (answer._tag === "Broken") problems.push({ kind: "connection broken", detail: answer.cause })
  else if (answer.status >= 300) {
    if (answer.status >= 500) problems.push({ kind: "5xx", detail: String(answer.status) })
    const problem = envelopeProblem(answer.text)
    if (problem !== undefined) problems.push({ kind: "not the error envelope", detail: problem })
  } else if (request.refuse !== undefined) {
    problems.push({ kind: "accepted, must be refused", detail: request.refuse })
  }
  return { request, answer, traceId, problems }
}
