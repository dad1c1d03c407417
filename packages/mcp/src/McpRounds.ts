/**
 * How a served call asks the client's user or model a question, in either
 * revision, without ever running the call twice.
 *
 * - **2025-11-25** (sessions): the question is a request from the server to
 *   the client (`elicitation/create`, `sampling/createMessage`) on the call's
 *   own stream, and the handler waits for the answer.
 * - **2026-07-28** (stateless): the server cannot send requests; it answers
 *   the call with `resultType: "input_required"`, the questions, and a
 *   `requestState`, and the client sends the call again with the answers.
 *   The SDK's idea is that the handler runs again from the start with the
 *   answers in hand; a tool's handler that already wrote a file or sent a
 *   message must not. So the call is *parked* instead: it keeps running,
 *   suspended at its question, under a one-time random token (the
 *   `requestState`), and the retry delivers the answers to it and waits for
 *   its result or its next questions. A state this server did not mint, one
 *   already used, one for another tool or other arguments, or one past its
 *   wait is refused with -32602: nothing runs.
 *
 * A first request may carry answers already (`inputResponses` under the
 * keys the tool is known to ask: clients of stateless servers do that): a
 * question whose key it answers takes that answer instead of a round. An
 * answer of the wrong shape (not an elicitation's `action`, not a sample's
 * `content`) is ignored and the question asked again.
 *
 * Questions asked at the same moment (a handler asking two things at once)
 * go out in one round; a question left unanswered in a retry is asked
 * again. A parked call waits at most `maxWait` for its retry, then it is
 * interrupted like a cancelled one; at most `maxParked` calls wait at once,
 * past that a new question is declined with the reason.
 *
 * @since 0.4.0
 */
import type {
  ClientCapabilities,
  CreateMessageResult,
  InputRequest,
  InputRequiredResult
} from "@modelcontextprotocol/server"
import { inputRequired, ProtocolError, ProtocolErrorCode } from "@modelcontextprotocol/server"
import type * as ClientRequests from "@tool-runtime/core/ClientRequests"
import * as Deferred from "effect/Deferred"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Fiber from "effect/Fiber"
import * as NodeCrypto from "node:crypto"

/** A request to the client, on the stream of the call that makes it (2025-11-25). */
export type Send = (
  request: {
    readonly method: "elicitation/create" | "sampling/createMessage"
    readonly params: Record<string, unknown>
  },
  options: { readonly signal: AbortSignal }
) => Promise<unknown>

const elicitParams = (request: { readonly message: string; readonly requestedSchema: object }) => ({
  message: request.message,
  requestedSchema: request.requestedSchema
})

const sampleParams = (request: ClientRequests.SampleRequest) => ({
  messages: request.messages.map((message) => ({
    role: message.role,
    content: { type: "text", text: message.text }
  })),
  maxTokens: request.maxTokens,
  ...(request.systemPrompt === undefined ? {} : { systemPrompt: request.systemPrompt }),
  ...(request.temperature === undefined ? {} : { temperature: request.temperature })
})

/** One block or several, text or not: the handler gets the text, and a line for what is not text. */
const sampleOf = (answer: unknown): ClientRequests.Sample => {
  const result = (typeof answer === "object" && answer !== null ? answer : {}) as Partial<CreateMessageResult>
  const blocks = (Array.isArray(result.content) ? result.content : [result.content]) as ReadonlyArray<
    { readonly type?: unknown; readonly text?: unknown } | undefined
  >
  const text = blocks.map((block) =>
    block?.type === "text" && typeof block.text === "string" ? block.text : `[${String(block?.type)} content]`
  ).join("\n")
  return {
    text,
    model: typeof result.model === "string" ? result.model : "unknown",
    ...(typeof result.stopReason === "string" ? { stopReason: result.stopReason } : {})
  }
}

const elicitAnswerOf = (answer: unknown): { readonly action: string; readonly content?: unknown } => {
  const value = (typeof answer === "object" && answer !== null ? answer : {}) as Record<string, unknown>
  return {
    action: typeof value.action === "string" ? value.action : "cancel",
    ...("content" in value ? { content: value.content } : {})
  }
}

/**
 * The channel of a 2025-11-25 call: requests on its own stream, only for
 * what the client declared it supports.
 *
 * @since 0.4.0
 * @category constructors
 */
export const pushChannel = (capabilities: ClientCapabilities | undefined, send: Send): ClientRequests.Channel => ({
  elicit: capabilities?.elicitation === undefined ?
    undefined :
    (request) =>
      Effect.tryPromise((signal) => send({ method: "elicitation/create", params: elicitParams(request) }, { signal }))
        .pipe(Effect.map(elicitAnswerOf)),
  sample: capabilities?.sampling === undefined ?
    undefined :
    (request) =>
      Effect.tryPromise((signal) =>
        send({ method: "sampling/createMessage", params: sampleParams(request) }, { signal })
      )
        .pipe(Effect.map(sampleOf))
})

interface Question {
  readonly request: InputRequest
  readonly answer: Deferred.Deferred<unknown>
}

/** Whether a client's value is an answer of the kind the question asked for; any other is asked again. */
const answers = (request: InputRequest, value: unknown): boolean => {
  if (typeof value !== "object" || value === null || Array.isArray(value)) return false
  const record = value as Record<string, unknown>
  return request.method === "elicitation/create"
    ? record.action === "accept" || record.action === "decline" || record.action === "cancel"
    : request.method === "sampling/createMessage"
    ? "content" in record
    : false
}

/** A call of the 2026-07-28 revision, from its first round to its result. */
interface Exchange<A> {
  /** Answers the first request already carried, by key (clients of stateless servers may send them at once). */
  readonly preset: Map<string, unknown>
  readonly tool: string
  readonly args: string
  readonly questions: Map<string, Question>
  readonly stop: Deferred.Deferred<string>
  fiber: Fiber.RuntimeFiber<A> | undefined
  wake: Deferred.Deferred<void>
  asked: number
  timer: Fiber.RuntimeFiber<void> | undefined
}

/**
 * What a round answers: the call's result, or the questions to send back.
 *
 * @since 0.4.0
 * @category models
 */
export type Round<A> =
  | { readonly _tag: "Done"; readonly result: A }
  | { readonly _tag: "Ask"; readonly result: InputRequiredResult }

/**
 * @since 0.4.0
 * @category models
 */
export interface Options {
  /** How long a parked call waits for the client to send it again. Default 10 minutes. */
  readonly maxWait?: Duration.DurationInput | undefined
  /** Calls parked at once. Default 256. */
  readonly maxParked?: number | undefined
}

const refused = () =>
  new ProtocolError(
    ProtocolErrorCode.InvalidParams,
    "Invalid or expired requestState: this server did not mint it, it was already used, it is for another call, " +
      "or the call stopped waiting. Call the tool again without it."
  )

/**
 * The calls of one server (all its requests, all their instances) that are
 * between two rounds.
 *
 * @since 0.4.0
 * @category models
 */
export interface Rounds {
  /**
   * Starts a call (its first round): `call` runs with the channel that parks
   * it at each question, and is interrupted (with the reason) when `stop`
   * completes. The round answers when the call is done or has asked.
   */
  readonly start: <A>(
    tool: string,
    args: unknown,
    capabilities: ClientCapabilities | undefined,
    call: (channel: ClientRequests.Channel, stop: Effect.Effect<string>) => Effect.Effect<A>,
    signal: AbortSignal,
    responses?: Record<string, unknown> | undefined
  ) => Effect.Effect<Round<A>>
  /** A retry: the answers go to the parked call, and the round answers as `start`'s does. */
  readonly resume: <A>(
    state: string,
    tool: string,
    args: unknown,
    responses: Record<string, unknown> | undefined,
    signal: AbortSignal
  ) => Effect.Effect<Round<A>, ProtocolError>
  /** Calls waiting now. */
  readonly parked: () => number
}

const stableArgs = (args: unknown): string => {
  try {
    return JSON.stringify(
      args ?? {},
      (_key, value: unknown) =>
        typeof value === "object" && value !== null && !Array.isArray(value)
          ? Object.fromEntries(Object.entries(value).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))
          : value
    )
  } catch {
    return "\u0000unreadable"
  }
}

/**
 * @since 0.4.0
 * @category constructors
 */
export const make = (options?: Options): Rounds => {
  const maxWait = Duration.decode(options?.maxWait ?? "10 minutes")
  const maxParked = Math.max(1, options?.maxParked ?? 256)
  const parked = new Map<string, Exchange<unknown>>()

  const channelOf = <A>(
    exchange: Exchange<A>,
    capabilities: ClientCapabilities | undefined
  ): ClientRequests.Channel => {
    const ask = (request: InputRequest, hint: string | undefined) =>
      Effect.gen(function*() {
        if (parked.size >= maxParked) {
          return yield* Effect.fail(new Error(`${maxParked} calls are already waiting for their client's answers`))
        }
        const named = hint?.slice(0, 64)
        const given = named === undefined ? undefined : exchange.preset.get(named)
        if (named !== undefined && exchange.preset.delete(named) && answers(request, given)) return given
        const answer = yield* Deferred.make<unknown>()
        const n = ++exchange.asked
        const key = named === undefined || named === ""
          ? `q${n}`
          : exchange.questions.has(named)
          ? `${named}_${n}`
          : named
        exchange.questions.set(key, { request, answer })
        Deferred.unsafeDone(exchange.wake, Exit.void)
        return yield* Deferred.await(answer).pipe(Effect.ensuring(Effect.sync(() => exchange.questions.delete(key))))
      })
    return {
      elicit: capabilities?.elicitation === undefined ?
        undefined :
        (request) =>
          ask(inputRequired.elicit(elicitParams(request) as Parameters<typeof inputRequired.elicit>[0]), request.key)
            .pipe(
              Effect.map(elicitAnswerOf)
            ),
      sample: capabilities?.sampling === undefined ? undefined : (request) =>
        ask(
          inputRequired.createMessage(sampleParams(request) as Parameters<typeof inputRequired.createMessage>[0]),
          request.key
        )
          .pipe(Effect.map(sampleOf))
    }
  }

  /** Until the call is done or waits for answers; the request's own abort stops the call. */
  const round = <A>(exchange: Exchange<A>, signal: AbortSignal): Effect.Effect<Round<A>> =>
    Effect.gen(function*() {
      const fiber = exchange.fiber!
      const onAbort = () => Deferred.unsafeDone(exchange.stop, Exit.succeed("the MCP client cancelled the request"))
      if (signal.aborted) onAbort()
      signal.addEventListener("abort", onAbort, { once: true })
      try {
        for (;;) {
          // Stopped (the client went away, or gave up): its answer is the call's own, however it ends.
          if (isDone(exchange.stop)) return { _tag: "Done" as const, result: yield* Fiber.join(fiber) }
          const unanswered = [...exchange.questions].filter(([, question]) => !isDone(question.answer))
          if (unanswered.length === 0) {
            exchange.wake = Deferred.unsafeMake<void>(fiber.id())
            const next = yield* Effect.raceFirst(
              Fiber.join(fiber).pipe(Effect.map((result) => ({ _tag: "Done" as const, result }))),
              Deferred.await(exchange.wake).pipe(Effect.as({ _tag: "Asked" as const }))
            )
            if (next._tag === "Done") return next
            // A handler that asks several things at once: they go out together.
            for (let turn = 0; turn < 4; turn++) yield* Effect.yieldNow()
            continue
          }
          const state = NodeCrypto.randomBytes(24).toString("base64url")
          parked.set(state, exchange as Exchange<unknown>)
          exchange.timer = yield* Effect.sleep(maxWait).pipe(
            Effect.andThen(Effect.sync(() => {
              parked.delete(state)
              Deferred.unsafeDone(
                exchange.stop,
                Exit.succeed(`the MCP client did not answer within ${Duration.format(maxWait)}`)
              )
            })),
            Effect.forkDaemon
          )
          return {
            _tag: "Ask" as const,
            result: inputRequired({
              inputRequests: Object.fromEntries(unanswered.map(([key, question]) => [key, question.request])),
              requestState: state
            })
          }
        }
      } finally {
        signal.removeEventListener("abort", onAbort)
      }
    })

  return {
    parked: () => parked.size,
    start: (tool, args, capabilities, call, signal, responses) =>
      Effect.gen(function*() {
        const stop = yield* Deferred.make<string>()
        const exchange: Exchange<any> = {
          preset: new Map(Object.entries(responses ?? {})),
          tool,
          args: stableArgs(args),
          questions: new Map(),
          stop,
          fiber: undefined,
          wake: yield* Deferred.make<void>(),
          asked: 0,
          timer: undefined
        }
        exchange.fiber = yield* Effect.forkDaemon(call(channelOf(exchange, capabilities), Deferred.await(stop)))
        return yield* round(exchange, signal)
      }),
    resume: (state, tool, args, responses, signal) =>
      Effect.gen(function*() {
        const exchange = parked.get(state)
        if (exchange === undefined || exchange.tool !== tool || exchange.args !== stableArgs(args)) {
          return yield* Effect.fail(refused())
        }
        // One use: the next round has a token of its own.
        parked.delete(state)
        if (exchange.timer !== undefined) yield* Fiber.interrupt(exchange.timer)
        for (const [key, question] of exchange.questions) {
          if (responses !== undefined && Object.hasOwn(responses, key) && answers(question.request, responses[key])) {
            Deferred.unsafeDone(question.answer, Exit.succeed(responses[key]))
          }
        }
        return yield* round(exchange as Exchange<any>, signal)
      })
  }
}

const isDone = <A>(deferred: Deferred.Deferred<A>): boolean => Effect.runSync(Deferred.isDone(deferred))
