/**
 * The support desk as an agent works it: the desk's five tools, one more
 * defined the `@effect/ai` way (a `Toolkit` and its handler layer, bridged
 * into the registry), and a scripted conversation for the scripted model
 * that plays it offline.
 *
 * The script is the brief's ticket agent making the mistakes real models
 * make, so the demo shows each one coming back as a result it can act on:
 * a misspelt tool name (`unknown_tool` with the right name suggested), a
 * handler that fails (the warranty check refuses transit damage and points
 * to the right policy), arguments as a raw JSON string. The model reads the
 * results and finishes the job.
 *
 * @since 0.1.0
 */
import type * as LanguageModel from "@effect/ai/LanguageModel"
import * as AiTool from "@effect/ai/Tool"
import * as Toolkit from "@effect/ai/Toolkit"
import * as AiToolkit from "@tool-runtime/ai/AiToolkit"
import * as ScriptedModel from "@tool-runtime/ai/ScriptedModel"
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import * as SupportDesk from "./SupportDesk.js"

// ---------------------------------------------------------------------------
// the @effect/ai toolkit
// ---------------------------------------------------------------------------

/**
 * Checks whether an order's problem is a warranty case. Read-only, with the
 * runtime's limits given as annotations.
 *
 * @since 0.1.0
 * @category tools
 */
export const CheckWarranty = AiTool.make("check_warranty", {
  description: "Checks whether the warranty covers a problem with an order's item.",
  parameters: {
    orderId: Schema.String.annotations({ description: "The order id, for example O-5001." }),
    problem: Schema.Literal("defect", "damaged_in_transit").annotations({
      description: "What is wrong: a defect of the item, or damage in transit."
    })
  },
  success: Schema.Struct({ orderId: Schema.String, covered: Schema.Boolean, until: Schema.String }),
  failure: Schema.Struct({ reason: Schema.String })
})
  .annotate(AiTool.Readonly, true)
  .annotate(AiToolkit.Timeout, "5 seconds")
  .annotate(AiToolkit.OutputLimit, 1_000)

/**
 * @since 0.1.0
 * @category tools
 */
export const WarrantyToolkit = Toolkit.make(CheckWarranty)

/**
 * The handler: it fails for transit damage, which the shop handles as
 * damaged on arrival, not as a warranty claim.
 *
 * @since 0.1.0
 * @category layers
 */
export const WarrantyHandlers = WarrantyToolkit.toLayer(Effect.gen(function*() {
  const desk = yield* SupportDesk.SupportDesk
  return {
    check_warranty: ({ orderId, problem }) =>
      Effect.gen(function*() {
        const order = yield* Effect.mapError(desk.order(orderId), (error) => ({ reason: error.message }))
        if (problem === "damaged_in_transit") {
          return yield* Effect.fail({
            reason: `Damage in transit is not a warranty claim for ${order.id}: ` +
              "handle it as damaged on arrival (KB-101)."
          })
        }
        return { orderId: order.id, covered: true, until: "2 years after delivery" }
      })
  }
}))

// ---------------------------------------------------------------------------
// the conversation
// ---------------------------------------------------------------------------

/**
 * @since 0.1.0
 * @category conversation
 */
export const system = "You are a support agent for a kitchen-appliance shop. Use the tools; never guess ids. " +
  "Answer the customer before closing a ticket."

/**
 * @since 0.1.0
 * @category conversation
 */
export const task = "Ticket T-1001 is waiting. Read it, find out what we owe the customer, answer her, " +
  "and close the ticket."

const text = ScriptedModel.text
const call = ScriptedModel.toolCall

/** The text of the last tool result the model received, from its prompt. */
const lastResult = (request: LanguageModel.ProviderOptions): string => {
  const last = request.prompt.content.at(-1)
  const part = last?.role === "tool" ? last.content.at(-1) : undefined
  return typeof part?.result === "string" ? part.result : ""
}

/**
 * What the scripted model replies, request by request.
 *
 * @since 0.1.0
 * @category conversation
 */
export const script: ReadonlyArray<ScriptedModel.Reply> = [
  [
    text("I'll read the ticket and look up the policy for damaged items."),
    call("toolu_01", "query_ticket", { ticketId: "T-1001" }),
    // Arguments as a JSON string, the way OpenAI sends them.
    call("toolu_02", "search_knowledge_base", "{\"query\": \"blender jar arrived cracked\", \"limit\": 2}")
  ],
  [
    text("The ticket links order O-5001. Let me check the order and whether the warranty covers this."),
    // A tool that does not exist: the runtime answers with the closest name.
    call("toolu_03", "query_orders", { orderId: "O-5001" }),
    call("toolu_04", "check_warranty", { orderId: "O-5001", problem: "damaged_in_transit" })
  ],
  [
    text("The tool is query_order, not query_orders, and transit damage goes by KB-101. Reading the order."),
    call("toolu_05", "query_order", { orderId: "O-5001" })
  ],
  [
    text("Blender Pro 200, delivered. Per KB-101 she gets a free replacement and keeps the damaged jar."),
    call("toolu_06", "reply_to_customer", {
      ticketId: "T-1001",
      message: "Hi Ada, I am sorry your Blender Pro 200 arrived with a cracked jar. A free replacement ships " +
        "within 2 business days, and you do not need to send the damaged one back."
    }),
    call("toolu_07", "close_ticket", { ticketId: "T-1001", resolution: "resolved" })
  ],
  (request) => [
    text(`Done. Ada Park gets a free replacement under KB-101, and the ticket says: ${lastResult(request)}`)
  ]
]
