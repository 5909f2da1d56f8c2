/** A JSON object read leniently: chat answers come from upstream and are not all decoded. */
export const isRecord = (value: unknown): value is Readonly<Record<string, unknown>> =>
  typeof value === "object" && value !== null && !Array.isArray(value)
