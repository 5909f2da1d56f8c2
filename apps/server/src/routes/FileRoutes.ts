/**
 * /v1/files (extensions.md, "Files and batches"): uploads as multipart (`file`, `purpose` =
 * `batch`) streamed into the file store as they arrive, bounded by `GATEWAY_MAX_FILE_BYTES` (413
 * past it) and by `GATEWAY_BODY_TIMEOUT_SECONDS` like every body (408, what was written of the
 * file removed); get, content, list and delete, in the caller's workspace.
 */
import * as NodeHttpServerRequest from "@effect/platform-node/NodeHttpServerRequest"
import { GatewayError } from "@switchyard/core"
import { FileStore } from "@switchyard/files"
import { FileObject, InvalidInput, ListQuery } from "@switchyard/protocol"
import { ByteSize, Context, Effect, Schema, Stream } from "effect"
import { HttpServerResponse, Multipart } from "effect/http"
import { BodyDeadlines } from "../http/BodyDeadlines.ts"
import { bodyTooSlow } from "../http/NodeBody.ts"
import { BodyTimeoutMs, param, type RouteInput } from "./ManagementRoute.ts"

type Handler<R> = (input: RouteInput) => Effect.Effect<unknown, GatewayError.GatewayError, R>
type Store = FileStore.FileStore

/** The largest upload (`GATEWAY_MAX_FILE_BYTES`); the server sets it. */
export const UploadBytes = Context.Reference<number>("@switchyard/server/UploadBytes", {
  defaultValue: () => FileStore.DEFAULT_MAX_BYTES
})

const decodeListQuery = InvalidInput.decodeInput(ListQuery.ListQuery)
const isPurpose = Schema.is(FileObject.FilePurpose)
const workspace = (input: RouteInput) => input.principal.workspaceId
const withStore = <A, E, R>(use: (store: Store["Service"]) => Effect.Effect<A, E, R>) => FileStore.FileStore.use(use)

const invalid = (param: string, message: string) => new GatewayError.InvalidRequest({ message, param })

const notMultipart = (error: Multipart.MultipartError) =>
  invalid(
    "file",
    `body: must be multipart/form-data with a file part "file" and a field "purpose" (${error.reason._tag})`
  )

interface Received {
  purpose: string | undefined
  staged: FileStore.Staged | undefined
  filename: string
}

/** Reads the parts as they arrive: the file goes straight to storage, whichever comes first. */
const receive = (input: RouteInput, store: Store["Service"], maxBytes: number, received: Received) =>
  Stream.runForEach(input.request.multipartStream, (part) => {
    if (part._tag === "Field") {
      if (part.key === "purpose") received.purpose = part.value
      if (part.key === "file") return Effect.fail(invalid("file", "file: must be a file part (with a filename)"))
      return Effect.void
    }
    if (part.key !== "file") return Stream.runDrain(part.content).pipe(Effect.mapError(notMultipart))
    if (received.staged !== undefined) return Effect.fail(invalid("file", "file: only one file per upload"))
    received.filename = part.name
    return store.stage(Stream.mapError(part.content, notMultipart), maxBytes).pipe(
      Effect.map((staged) => {
        received.staged = staged
      })
    )
  }).pipe(
    Effect.catchTag("MultipartError", (error) => Effect.fail(notMultipart(error))),
    // an upload's own limit is ours (UploadBytes), not the parser's; application/json parts are files too
    Effect.provideService(Multipart.FieldMimeTypes, []),
    Effect.provideService(Multipart.MaxFieldSize, ByteSize.kibibytes(64)),
    Effect.provideService(Multipart.MaxParts, 16)
  )

/**
 * Fails with a 408 once `timeoutMs` has passed since the upload began, unless interrupted first;
 * kept by the server's one deadline sweeper, as the JSON bodies' are.
 */
const tooSlow = (timeoutMs: number) =>
  BodyDeadlines.use((deadlines) =>
    Effect.callback<never, GatewayError.ClientTimeout>((resume) => {
      const cancel = deadlines.start(timeoutMs, () => resume(Effect.fail(bodyTooSlow(timeoutMs))))
      return Effect.sync(cancel)
    })
  )

export const uploadFile: Handler<Store | BodyDeadlines> = (input) =>
  withStore((store) => {
    const received: Received = { purpose: undefined, staged: undefined, filename: "" }
    return Effect.gen(function*() {
      // the whole body within the body timeout: a client that stalls mid-upload loses the race, and
      // the file it was writing is removed as its write is interrupted (or discarded below once staged)
      yield* Effect.raceFirst(
        receive(input, store, yield* UploadBytes, received),
        BodyTimeoutMs.use(tooSlow)
      )
      const staged = received.staged
      if (staged === undefined) return yield* invalid("file", "file: missing (a multipart file part named file)")
      const purpose = received.purpose
      if (purpose === undefined) return yield* invalid("purpose", "purpose: missing; must be batch")
      if (purpose !== "batch" || !isPurpose(purpose)) {
        return yield* invalid("purpose", `purpose: must be batch (got ${JSON.stringify(purpose).slice(0, 80)})`)
      }
      return yield* store.commit(workspace(input), staged, { filename: received.filename, purpose })
    }).pipe(
      Effect.tapError(() =>
        Effect.gen(function*() {
          if (received.staged !== undefined) yield* store.discard(received.staged)
          // what the client still sends is read and dropped, so it reads the answer instead of a reset
          NodeHttpServerRequest.toIncomingMessage(input.request).resume()
        })
      )
    )
  })

export const listFiles: Handler<Store> = (input) =>
  Effect.gen(function*() {
    const query = Object.fromEntries(new URL(input.request.url, "http://gateway").searchParams)
    const { limit, order, after, before, purpose } = query
    const present = Object.entries({ limit, order, after, before }).filter(([, value]) => value !== undefined)
    const listQuery = yield* decodeListQuery(Object.fromEntries(present)).pipe(
      Effect.mapError((error) => new GatewayError.InvalidRequest({ message: error.message, param: error.param }))
    )
    if (purpose !== undefined && !isPurpose(purpose)) {
      return yield* invalid("purpose", "purpose: must be batch or batch_output")
    }
    return yield* withStore((store) => store.list(workspace(input), listQuery, purpose))
  })

export const getFile: Handler<Store> = (input) => withStore((store) => store.get(workspace(input), param(input, "id")))

export const fileContent: Handler<Store> = (input) =>
  withStore((store) =>
    Effect.map(
      store.content(workspace(input), param(input, "id")),
      (content) => HttpServerResponse.stream(content, { contentType: "application/octet-stream" })
    )
  )

export const deleteFile: Handler<Store> = (input) =>
  withStore((store) => store.remove(workspace(input), param(input, "id")))
