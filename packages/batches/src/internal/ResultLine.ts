import { newId } from "./BatchStore.ts"

/** One line of an output or error file (the common batch format). */
export const resultLine = (
  customId: string | null,
  requestId: string | null,
  response: { readonly status: number; readonly body: unknown } | null,
  error: { readonly code: string; readonly message: string } | null
) =>
  JSON.stringify({
    id: newId("batch_req"),
    custom_id: customId,
    response: response === null ? null : { status_code: response.status, request_id: requestId, body: response.body },
    error
  })
