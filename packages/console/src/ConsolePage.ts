/**
 * The answers that serve the console: the page at `/console` and its built script and style
 * sheet (`assets/`, made by `vite build` from `app/` and kept in the package). Everything comes from
 * the gateway itself, and the page's Content-Security-Policy lets the browser load and call
 * nothing else: no inline script or style, no other host, no frame, no form target.
 */
import { Effect } from "effect"
import { HttpServerResponse } from "effect/http"
import { readFile } from "node:fs/promises"

/** Where the page finds its assets. */
export const SCRIPT_PATH = "/console/console.js"
export const STYLE_PATH = "/console/console.css"

export const CONTENT_SECURITY_POLICY = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self'",
  "connect-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'"
].join("; ")

/** Sent with each answer: the page is never framed, sniffed or told where its visitor came from. */
const SECURITY_HEADERS = {
  "content-security-policy": CONTENT_SECURITY_POLICY,
  "x-content-type-options": "nosniff",
  "referrer-policy": "no-referrer",
  "cross-origin-opener-policy": "same-origin"
}

// src/ and dist/ are both one level under the package, beside assets/
const asset = (name: string) => readFile(new URL(`../assets/${name}`, import.meta.url), "utf8")

/** Read on the first request and kept: a server may never serve the console. */
const once = <A>(build: () => Promise<A>): Effect.Effect<A> => {
  let built: Promise<A> | undefined
  return Effect.promise(() => (built ??= build()))
}

/** Revalidated on each load, so a gateway upgrade is seen at once; the files are small. */
const CACHE = "no-cache"

export const page = HttpServerResponse.html(`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
<title>Switchyard console</title>
<link rel="stylesheet" href="${STYLE_PATH}">
<script type="module" src="${SCRIPT_PATH}"></script>
</head>
<body>
<div id="console"></div>
</body>
</html>
`).pipe(HttpServerResponse.setHeaders({ ...SECURITY_HEADERS, "cache-control": CACHE }))

export const script = once(async () =>
  HttpServerResponse.text(await asset("console.js"), {
    contentType: "text/javascript; charset=utf-8",
    headers: { ...SECURITY_HEADERS, "cache-control": CACHE }
  })
)

export const style = once(async () =>
  HttpServerResponse.text(await asset("console.css"), {
    contentType: "text/css; charset=utf-8",
    headers: { ...SECURITY_HEADERS, "cache-control": CACHE }
  })
)
