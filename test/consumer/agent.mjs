// The README's quick start. The consumer test runs it with plain `node` against the packed packages
// and type-checks the same file with a strict TypeScript config: keep the two in step.
import { Tool, ToolError, ToolResult, ToolRuntime } from "@tool-runtime/core"
import { Effect, Schema } from "effect"

const lookupOrder = Tool.make("lookup_order", {
  description: "Looks up an order by id.",
  parameters: { orderId: Schema.String.annotations({ description: "For example A-1001." }) },
  readOnly: true, // reads may run together; everything else runs alone
  timeout: "5 seconds",
  handler: ({ orderId }) => Effect.succeed({ orderId, status: "shipped" })
})

const refundOrder = Tool.make("refund_order", {
  description: "Refunds part of an order, up to 100.",
  parameters: { orderId: Schema.String, amount: Schema.Number },
  risk: "high",
  // A business rule the schema cannot express: the model gets the reason and the fix.
  validate: ({ amount }) =>
    amount > 0 && amount <= 100
      ? Effect.void
      : Effect.fail(new ToolError.RuleViolation({ reason: "a refund is between 0 and 100", fix: "Ask a person." })),
  handler: ({ amount, orderId }) => Effect.succeed(`Refunded ${amount} on ${orderId}.`)
})

const program = Effect.gen(function*() {
  const runtime = yield* ToolRuntime.ToolRuntime
  // The calls exactly as a model sent them: objects or JSON strings, a bad one, an unknown one.
  const results = yield* runtime.runTurn([
    { id: "call_1", name: "lookup_order", input: { orderId: "A-1001" } },
    { id: "call_2", name: "refund_order", input: "{\"orderId\": \"A-1001\", \"amount\": 500}" },
    { id: "call_3", name: "refund_order", input: { orderId: 7 } },
    { id: "call_4", name: "cancel_order", input: {} }
  ])
  for (const result of results) {
    const text = ToolResult.text(result)
    console.log(JSON.stringify({ id: result.callId, isError: result.isError, code: result.error?.code, text }))
  }
})

program.pipe(Effect.provide(ToolRuntime.layerDefault([lookupOrder, refundOrder])), Effect.runPromise)
