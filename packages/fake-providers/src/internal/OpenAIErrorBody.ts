/** The error shape OpenAI answers with: `{ error: { message, type, param, code } }`. */
export const openAIErrorBody = (message: string, type: string, code: string | null) => ({
  error: { message, type, param: null, code }
})

export const unknownUrl = (method: string, path: string) =>
  openAIErrorBody(`Unknown request URL: ${method} ${path}.`, "invalid_request_error", "unknown_url")

export const invalidJson = () =>
  openAIErrorBody("We could not parse the JSON body of your request.", "invalid_request_error", null)
