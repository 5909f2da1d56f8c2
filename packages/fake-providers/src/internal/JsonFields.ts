/** Reads fields of a parsed JSON body without trusting its shape. */
export type JsonRecord = Readonly<Record<string, unknown>>

export const isRecord = (value: unknown): value is JsonRecord =>
  typeof value === "object" && value !== null && !Array.isArray(value)

export const field = (value: unknown, key: string): unknown => isRecord(value) ? value[key] : undefined

export const stringField = (value: unknown, key: string): string | undefined => {
  const found = field(value, key)
  return typeof found === "string" ? found : undefined
}

export const arrayField = (value: unknown, key: string): ReadonlyArray<unknown> => {
  const found = field(value, key)
  return Array.isArray(found) ? found : []
}

/** Text of an OpenAI message content: a string, or the text parts of an array of parts. */
export const contentText = (content: unknown): string => {
  if (typeof content === "string") return content
  if (!Array.isArray(content)) return ""
  return content.map((part) => stringField(part, "text") ?? "").filter((text) => text !== "").join(" ")
}

/** The fake's token count: whitespace-separated words. */
export const countWords = (text: string): number => text.split(/\s+/).filter((word) => word !== "").length
