/**
 * Knowing when a tool call's answer was lost on the way back.
 *
 * Over streamable HTTP each request gets a response stream of its own. Under
 * the 2026-07-28 revision a stream that breaks before the result loses the
 * request for good (there is no resumption), and the revision tells clients
 * to send it again under a new id; a 2025-11-25 server without resumable
 * streams loses it just the same. The server may have run the tool by then.
 * Sending a write again would run it twice, so the SDK is not left to wait
 * for an answer that will never come (it would, until its deadline) nor to
 * retry: this transport notices the stream ending without the result and
 * fails the call with {@link StreamLost}, and `McpClient` decides what that
 * means for the tool (read-only: sent again once; anything else: the result
 * says its outcome is unknown).
 *
 * A call is recognized by a key of ours in its `_meta` ({@link metaKey}),
 * since the SDK picks the request ids.
 *
 * @since 0.4.0
 */
import type {
  JSONRPCMessage,
  RequestId,
  StreamableHTTPClientTransportOptions,
  Transport
} from "@modelcontextprotocol/client"
import { SdkError, SdkErrorCode, StreamableHTTPClientTransport } from "@modelcontextprotocol/client"
import * as Predicate from "effect/Predicate"

/**
 * The `_meta` key that names a call for the transport.
 *
 * @since 0.4.0
 * @category constants
 */
export const metaKey = "tool-runtime/call"

/**
 * The reason a call's signal is aborted with when its answer was lost. An
 * `SdkError`, so the SDK rejects the call with it as it is.
 *
 * @since 0.4.0
 * @category errors
 */
export class StreamLost extends SdkError {
  constructor(readonly how: string) {
    super(SdkErrorCode.ConnectionClosed, `the answer was lost: ${how}`)
  }
}

/**
 * @since 0.4.0
 * @category refinements
 */
export const isLost = (error: unknown): error is StreamLost => error instanceof StreamLost

// A request that never left: the server cannot have run it.
const neverSent = new Set(["ECONNREFUSED", "ENOTFOUND", "EAI_AGAIN", "EHOSTUNREACH", "ENETUNREACH"])

const causeCode = (error: unknown): string | undefined => {
  const cause = Predicate.hasProperty(error, "cause") ? error.cause : undefined
  return Predicate.hasProperty(cause, "code") && typeof cause.code === "string" ? cause.code : undefined
}

const keyOf = (message: JSONRPCMessage): string | undefined => {
  if (!("method" in message) || message.method !== "tools/call" || !("id" in message)) return undefined
  const meta = Predicate.hasProperty(message.params, "_meta") ? message.params._meta : undefined
  const key = Predicate.hasProperty(meta, metaKey) ? meta[metaKey] : undefined
  return typeof key === "string" ? key : undefined
}

const isResponse = (message: JSONRPCMessage): message is JSONRPCMessage & { readonly id: RequestId } =>
  "id" in message && !("method" in message)

/**
 * The SDK's streamable HTTP transport, watching the calls it carries.
 *
 * @since 0.4.0
 * @category transports
 */
export class WatchedHttpTransport extends StreamableHTTPClientTransport {
  /** Request id → the call's key, while its answer is awaited. */
  private readonly awaited = new Map<RequestId, string>()
  private readonly onLost = new Map<string, (how: string) => void>()

  constructor(url: URL, options?: StreamableHTTPClientTransportOptions) {
    super(url, options)
    // The SDK sets `onmessage` after construction; answers pass through here on their way to it.
    let downstream: Transport["onmessage"]
    const receive: NonNullable<Transport["onmessage"]> = (message, extra) => {
      if (isResponse(message)) this.awaited.delete(message.id)
      downstream?.(message, extra)
    }
    Object.defineProperty(this, "onmessage", {
      configurable: true,
      enumerable: true,
      get: () => downstream === undefined ? undefined : receive,
      set: (handler: Transport["onmessage"]) => {
        downstream = handler
      }
    })
  }

  /**
   * Calls `lost` if the answer to the call named `key` is lost; returns the
   * way to stop watching.
   */
  watch(key: string, lost: (how: string) => void): () => void {
    this.onLost.set(key, lost)
    return () => this.onLost.delete(key)
  }

  private lose(id: RequestId, how: string): void {
    const key = this.awaited.get(id)
    if (key === undefined) return
    this.awaited.delete(id)
    this.onLost.get(key)?.(how)
  }

  override send(
    message: JSONRPCMessage,
    options?: Parameters<StreamableHTTPClientTransport["send"]>[1]
  ): Promise<void> {
    const key = keyOf(message)
    if (key === undefined || !("id" in message) || message.id === undefined) return super.send(message, options)
    const id: RequestId = message.id
    this.awaited.set(id, key)
    return super.send(message, {
      ...options,
      // Called whenever the call's stream ends; the answer, if it came, went through `receive` before.
      onRequestStreamEnd: () => {
        options?.onRequestStreamEnd?.()
        this.lose(id, "the response stream ended before the result")
      }
    }).catch((error: unknown) => {
      // fetch fails with a TypeError when the network does (undici's "fetch failed", "terminated");
      // anything else is the server's answer (a 401, an HTTP error): it did not run the call.
      const code = causeCode(error)
      if (error instanceof TypeError && (code === undefined || !neverSent.has(code))) {
        this.lose(id, "the connection broke during the request")
      } else this.awaited.delete(id)
      throw error
    })
  }
}
