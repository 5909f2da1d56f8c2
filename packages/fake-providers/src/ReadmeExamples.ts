/**
 * Keeps a package's README and its example files from drifting apart: every ```ts block of the
 * README must be, character for character, the shown part of one file under `examples/`, and
 * every example file must be shown. The shown part is the whole file, or only the lines between
 * `// README start` (or the top of the file) and `// README end` when the file has that marker:
 * what only the test needs (an export with a type annotation, fixtures) stays outside. The examples themselves are type-checked by `tsc -b` and run by the package's
 * `test/Examples.test.ts`, so what a README shows compiles and does what it says.
 *
 * @example
 * ```ts
 * import { ReadmeExamples } from "@switchyard/fake-providers"
 *
 * ReadmeExamples.check(new URL("..", import.meta.url)) // throws an AssertionError naming each mismatch
 * ```
 */
import { AssertionError } from "node:assert"
import { readdirSync, readFileSync } from "node:fs"
import { join, relative } from "node:path"
import { fileURLToPath } from "node:url"

export const START = "// README start"
export const END = "// README end"

/** One ```ts block of a README. */
export interface Block {
  /** The line of its opening fence, from 1. */
  readonly line: number
  readonly code: string
}

/** One example file and the part of it a README shows. */
export interface Example {
  /** Relative to the package, e.g. `examples/Retry.ts`. */
  readonly file: string
  readonly shown: string
}

const FENCE = /^(\s*)```(\w*)\s*$/

/** The ```ts (or ```typescript) blocks of a markdown text, their indentation removed. */
export const blocksOf = (markdown: string): ReadonlyArray<Block> => {
  const lines = markdown.split("\n")
  const blocks: Array<Block> = []
  for (let index = 0; index < lines.length; index++) {
    const open = FENCE.exec(lines[index] ?? "")
    if (open === null) continue
    const indent = open[1] ?? ""
    const body: Array<string> = []
    let end = index + 1
    while (end < lines.length && !/^\s*```\s*$/.test(lines[end] ?? "")) body.push(lines[end++] ?? "")
    if (open[2] === "ts" || open[2] === "typescript") {
      blocks.push({ line: index + 1, code: trimEnd(body.map((line) => line.slice(indent.length)).join("\n")) })
    }
    index = end
  }
  return blocks
}

/** The part of an example file a README shows: the marked region, or the whole file. */
export const shownPartOf = (source: string, file = "the example"): string => {
  const lines = source.split("\n")
  const start = lines.findIndex((line) => line.trim() === START)
  const end = lines.findIndex((line) => line.trim() === END)
  if (end === -1) {
    if (start !== -1) throw new Error(`${file}: "${START}" without "${END}"`)
    return trimEnd(source)
  }
  if (end < start) throw new Error(`${file}: "${END}" before "${START}"`)
  return trimEnd(lines.slice(start + 1, end).join("\n"))
}

/** The `.ts` files under `<packageDir>/examples`, with what each shows. */
export const examplesOf = (packageDir: string | URL): ReadonlyArray<Example> => {
  const root = typeof packageDir === "string" ? packageDir : fileURLToPath(packageDir)
  const dir = join(root, "examples")
  let names: ReadonlyArray<string>
  try {
    names = readdirSync(dir, { recursive: true, encoding: "utf8" })
  } catch {
    return []
  }
  return names.filter((name) => name.endsWith(".ts")).sort().map((name) => {
    const file = relative(root, join(dir, name))
    return { file, shown: shownPartOf(readFileSync(join(dir, name), "utf8"), file) }
  })
}

/**
 * Throws an `AssertionError` unless every ```ts block of `<packageDir>/README.md` is the shown
 * part of an example file and every example file is shown. The message names each mismatch; for a
 * block that matches no file it shows the difference to the file it resembles most.
 */
export const check = (packageDir: string | URL): void => {
  const root = typeof packageDir === "string" ? packageDir : fileURLToPath(packageDir)
  const blocks = blocksOf(readFileSync(join(root, "README.md"), "utf8"))
  const examples = examplesOf(root)
  const unshown = new Set(examples)
  const problems: Array<string> = []
  let firstDifference: { readonly actual: string; readonly expected: string } | undefined
  for (const block of blocks) {
    const match = examples.find((example) => example.shown === block.code)
    if (match !== undefined) {
      unshown.delete(match)
      continue
    }
    const closest = closestTo(block.code, examples)
    problems.push(
      `README.md:${block.line}: this ts block is no example file's content` +
        (closest === undefined ? " (there is no examples/ directory)" : `; closest: ${closest.file}`)
    )
    if (closest !== undefined) firstDifference ??= { actual: block.code, expected: closest.shown }
  }
  for (const example of unshown) problems.push(`${example.file}: not shown in README.md`)
  if (problems.length === 0) return
  throw new AssertionError({
    message: `${relative(process.cwd(), root) || "."}: README and examples differ\n  ${problems.join("\n  ")}`,
    ...(firstDifference === undefined ? {} : { ...firstDifference, operator: "strictEqual" })
  })
}

const trimEnd = (text: string): string => text.replace(/\s+$/, "")

/** The example sharing the most lines with `code`. */
const closestTo = (code: string, examples: ReadonlyArray<Example>): Example | undefined => {
  const lines = new Set(code.split("\n"))
  let best: Example | undefined
  let bestScore = -1
  for (const example of examples) {
    const score = example.shown.split("\n").filter((line) => lines.has(line)).length
    if (score > bestScore) {
      best = example
      bestScore = score
    }
  }
  return best
}
