/**
 * JSONL as it streams by: a checker that sees an upload's bytes chunk by chunk, without holding
 * more than the current line. Batch input is checked this way on upload, so a file that is not
 * JSONL at all (not UTF-8, no line, or no line that is a JSON object) is refused before a batch
 * names it; a JSONL file with some bad lines is kept, and the batch reports each of them.
 *
 * @example
 * import { JsonLines } from "@switchyard/files"
 *
 * const checker = JsonLines.makeChecker()
 * checker.push(new TextEncoder().encode("[1]\n[2]\n"))
 * checker.end() // { _tag: "NotAnObject", line: 1 }
 */

/** What is wrong with a file as JSONL. `line` is 1-based. */
export type Problem =
  | { readonly _tag: "NotUtf8" }
  | { readonly _tag: "NotAnObject"; readonly line: number }
  | { readonly _tag: "NoLine" }

export interface Checker {
  /** Feeds the next bytes of the file. */
  readonly push: (chunk: Uint8Array) => void
  /** What makes the file no JSONL, or undefined when at least one line is a JSON object. */
  readonly end: () => Problem | undefined
}

const isObject = (text: string): boolean => {
  try {
    const value: unknown = JSON.parse(text)
    return typeof value === "object" && value !== null && !Array.isArray(value)
  } catch {
    return false
  }
}

/** A fresh checker for one file. Blank lines (and a final newline) are allowed. */
export const makeChecker = (): Checker => {
  const decoder = new TextDecoder("utf-8", { fatal: true })
  let rest = ""
  let line = 0
  let lines = 0
  let objects = 0
  let firstBad: number | undefined
  let problem: Problem | undefined
  const take = (text: string) => {
    line += 1
    if (text.trim() === "") return
    lines += 1
    // once one line is an object, the others are the batch's to judge line by line
    if (objects > 0) return
    if (isObject(text)) objects += 1
    else firstBad ??= line
  }
  const feed = (text: string, final: boolean) => {
    const parts = (rest + text).split("\n")
    rest = final ? "" : parts.pop() ?? ""
    for (const part of parts) {
      if (problem !== undefined) return
      take(part)
    }
  }
  return {
    push: (chunk) => {
      if (problem !== undefined) return
      try {
        feed(decoder.decode(chunk, { stream: true }), false)
      } catch {
        problem = { _tag: "NotUtf8" }
      }
    },
    end: () => {
      if (problem === undefined) {
        try {
          feed(decoder.decode(), true)
        } catch {
          problem = { _tag: "NotUtf8" }
        }
      }
      if (problem !== undefined) return problem
      if (lines === 0) return { _tag: "NoLine" }
      return objects === 0 ? { _tag: "NotAnObject", line: firstBad ?? 1 } : undefined
    }
  }
}

/** The problem in words, for a 400 naming `file`. */
export const describe = (problem: Problem): string => {
  switch (problem._tag) {
    case "NotUtf8":
      return "file: must be UTF-8 text (JSONL)"
    case "NotAnObject":
      return `file: no line is a JSON object, line ${problem.line} the first (a batch input file is JSONL: one JSON object per line)`
    case "NoLine":
      return "file: has no line (a batch input file is JSONL: one JSON object per line)"
  }
}
