/**
 * The loopback listener an OAuth approval comes back to (RFC 8252), for
 * `McpOAuth`.
 *
 * @since 0.4.0
 * @internal
 */
import * as NodeHttp from "node:http"

/** @internal */
export interface Answer {
  readonly code: string
  readonly iss: string | undefined
}

/** @internal */
export interface Callback {
  readonly url: string
  /** The code, and the `iss` the authorization server named itself by (RFC 9207), when it did. */
  readonly code: (state: string, timeoutMillis: number) => Promise<Answer>
  readonly close: () => void
}

const page = (text: string) => `<!doctype html><meta charset="utf-8"><title>tool-runtime</title><p>${text}</p>`

/**
 * The loopback listener the browser comes back to (RFC 8252): only
 * `GET /callback` with the `state` of the flow under way counts; anything
 * else is answered and ignored, so a forged request cannot end the flow.
 *
 * @internal
 */
export const listen = (port: number): Promise<Callback> =>
  new Promise((resolve, reject) => {
    const waiting = new Map<string, { ok: (answer: Answer) => void; fail: (error: Error) => void }>()
    const server = NodeHttp.createServer((request, response) => {
      const url = new URL(request.url ?? "/", "http://127.0.0.1")
      const state = url.searchParams.get("state")
      const pending = state === null ? undefined : waiting.get(state)
      if (request.method !== "GET" || url.pathname !== "/callback" || pending === undefined) {
        response.writeHead(url.pathname === "/callback" ? 400 : 404, { "content-type": "text/html" })
        response.end(page("This is not the authorization this client is waiting for."))
        return
      }
      const code = url.searchParams.get("code")
      const error = url.searchParams.get("error")
      response.writeHead(code === null ? 400 : 200, { "content-type": "text/html", "cache-control": "no-store" })
      response.end(
        page(code === null ? "Authorization failed; you can close this tab." : "Authorized; you can close this tab.")
      )
      if (code !== null) pending.ok({ code, iss: url.searchParams.get("iss") ?? undefined })
      else {
        const description = url.searchParams.get("error_description")
        // Words from the authorization server, shown as its words: cut short, one line.
        const said = `${error ?? "no code"}${description === null ? "" : `: ${description}`}`
          .replace(/\p{Cc}/gu, " ").slice(0, 300)
        pending.fail(new Error(`the authorization server refused: ${said}`))
      }
    })
    server.once("error", reject)
    server.unref()
    server.listen(port, "127.0.0.1", () => {
      const address = server.address()
      const bound = typeof address === "object" && address !== null ? address.port : port
      resolve({
        url: `http://127.0.0.1:${bound}/callback`,
        code: (state, timeoutMillis) =>
          new Promise<Answer>((ok, fail) => {
            // Never what keeps the process alive: an abandoned flow must not delay its exit.
            const timer = setTimeout(() => {
              waiting.delete(state)
              fail(new Error(`nobody approved within ${Math.round(timeoutMillis / 1000)} s`))
            }, timeoutMillis).unref()
            const done = () => {
              clearTimeout(timer)
              waiting.delete(state)
            }
            waiting.set(state, {
              ok: (answer) => {
                done()
                ok(answer)
              },
              fail: (error) => {
                done()
                fail(error)
              }
            })
          }),
        close: () => {
          for (const pending of [...waiting.values()]) pending.fail(new Error("the authorization was abandoned"))
          server.closeAllConnections()
          server.close()
        }
      })
    })
  })

/** The port of a registered loopback redirect URI, if one is. @internal */
export const loopbackPort = (uris: ReadonlyArray<string> | undefined): number | undefined => {
  for (const uri of uris ?? []) {
    if (!URL.canParse(uri)) continue
    const url = new URL(uri)
    if (url.protocol === "http:" && (url.hostname === "127.0.0.1" || url.hostname === "localhost") && url.port !== "") {
      return Number(url.port)
    }
  }
  return undefined
}
