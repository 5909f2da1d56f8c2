/**
 * `default.containsCode {format, not}`: the text holds a fenced code block (```lang); with
 * `format` (e.g. `Python`, `JavaScript`, `SQL`), one in that language.
 */
import { Effect, Schema } from "effect"
import * as Check from "../../Check.ts"
import { Not } from "./Parameters.ts"

// a fence's language tag, as writers spell it, to the language it names
const ALIASES: Readonly<Record<string, string>> = {
  py: "python",
  js: "javascript",
  ts: "typescript",
  sh: "shell",
  bash: "shell",
  zsh: "shell",
  rb: "ruby",
  rs: "rust",
  yml: "yaml",
  "c++": "cpp",
  cs: "csharp",
  "c#": "csharp",
  kt: "kotlin",
  golang: "go"
}

const languageOf = (tag: string): string => {
  const lower = tag.toLowerCase()
  return ALIASES[lower] ?? lower
}

export const containsCode = Check.make({
  id: "default.containsCode",
  parameters: Schema.Struct({ format: Schema.optionalKey(Schema.String), not: Not }),
  run: (context, { format, not }) =>
    Effect.sync(() => {
      const tags = [...Check.textOf(context).matchAll(/```([^\s`]*)[^\n]*\n[\s\S]*?```/g)].map((m) => m[1] ?? "")
      const wanted = format === undefined ? undefined : languageOf(format)
      const found = wanted === undefined ? tags.length > 0 : tags.some((tag) => languageOf(tag) === wanted)
      const what = wanted === undefined ? "a code block" : `a ${format} code block`
      return Check.verdict(
        found,
        not,
        { holds: `the text holds ${what}`, fails: `the text holds no ${what.slice(2)}` },
        {
          languages: tags.filter((tag) => tag.length > 0).map(languageOf)
        }
      )
    })
})
