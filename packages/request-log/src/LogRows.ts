/**
 * A batch of request log rows as bytes (storage's `RowBytes`), each row written as its request
 * ends: nothing of the request stays on the heap while the batch waits (up to a second), where it
 * outlived V8's young generation, and the batch is handed to SQLite's writer thread whole. What a
 * request may still be noting when it ends (its hooks' results, while a stream's checks run) and
 * its bodies (kept only with `GATEWAY_LOG_BODIES`) are read when the batch is written.
 */
import type { RequestNotes } from "@switchyard/core"
import { RowBytes } from "@switchyard/storage"
import { bodyText, COLUMNS, type Entry } from "./LogRecord.ts"

/** A value read when the batch is written: a request's hook results, or one of its bodies. */
type Later = { readonly notes: RequestNotes.RequestNotes } | { readonly body: unknown }

export class LogRows {
  private readonly writer: RowBytes.RowWriter
  private readonly later: Array<Later> = []
  /** The metadata last written and its JSON: most requests carry the same object (none). */
  private metadata: Readonly<Record<string, string>> | undefined = undefined
  private metadataJson = ""

  /** Rows in a buffer of `capacity` bytes to start with (it grows as needed). */
  constructor(capacity?: number) {
    this.writer = new RowBytes.RowWriter(COLUMNS.length, capacity)
  }

  /** The rows of `entries`, in order. */
  static of(entries: Iterable<Entry>): LogRows {
    const rows = new LogRows()
    for (const entry of entries) rows.add(entry)
    return rows
  }

  get count(): number {
    return this.writer.rows
  }

  /** The bytes written: the first `length` of `bytes`. */
  get bytes(): Uint8Array<ArrayBuffer> {
    return this.writer.bytes
  }

  get length(): number {
    return this.writer.length
  }

  /**
   * Appends an entry's row but its id, in the order of `COLUMNS`. An entry that cannot be written
   * (a value of the wrong type) throws, and leaves the rows before it whole.
   */
  add(entry: Entry): void {
    const later = this.later.length
    try {
      this.write(entry)
    } catch (cause) {
      this.writer.dropPartialRow()
      this.later.length = later
      throw cause
    }
  }

  private write(entry: Entry): void {
    const row = this.writer
    row.value(entry.workspaceId)
    row.value(entry.receivedAt)
    row.value(entry.traceId)
    row.value(entry.route)
    row.value(entry.endpoint ?? null)
    row.value(entry.status)
    row.value(entry.stream ? 1 : 0)
    row.value(entry.provider ?? null)
    row.value(entry.model ?? null)
    row.value(entry.targetPath ?? null)
    row.value(entry.usage?.inputTokens ?? null)
    row.value(entry.usage?.outputTokens ?? null)
    row.value(entry.costUsd !== undefined && Number.isFinite(entry.costUsd) ? entry.costUsd : null)
    row.value(entry.latencyMs)
    row.value(entry.firstTokenMs ?? null)
    row.value(entry.cacheStatus ?? null)
    row.value(entry.retries ?? null)
    row.value(entry.apiKeyId ?? null)
    if (entry.metadata !== this.metadata) {
      this.metadata = entry.metadata
      this.metadataJson = JSON.stringify(entry.metadata)
    }
    row.value(this.metadataJson)
    // a request whose stages may note hook results has its notes' `hooks` from the first stage on
    const notes = entry.notes
    if (notes?.hooks === undefined) row.value(null)
    else this.readLater(row, { notes })
    if (entry.requestBody === undefined) row.value(null)
    else this.readLater(row, { body: entry.requestBody })
    if (entry.responseBody === undefined) row.value(null)
    else this.readLater(row, { body: entry.responseBody })
  }

  private readLater(row: RowBytes.RowWriter, later: Later): void {
    row.later()
    this.later.push(later)
  }

  /** The values read as the batch is written, in the order the rows left them. */
  laterValues(): Array<RowBytes.Value> {
    return this.later.map((later) => {
      if ("body" in later) return bodyText(later.body)
      const hooks = later.notes.hooks
      return hooks === undefined || hooks.length === 0 ? null : JSON.stringify(hooks)
    })
  }

  /** The rows as values by column, with ids from `newId` (for an INSERT built by effect/sql). */
  toRows(newId: () => string): Array<Record<string, RowBytes.Value>> {
    const rows: Array<Record<string, RowBytes.Value>> = []
    RowBytes.readRows(this.bytes, this.length, COLUMNS.length, this.laterValues(), (values) => {
      const row: Record<string, RowBytes.Value> = { id: newId() }
      COLUMNS.forEach((column, index) => {
        row[column] = values[index] ?? null
      })
      rows.push(row)
    })
    return rows
  }
}
