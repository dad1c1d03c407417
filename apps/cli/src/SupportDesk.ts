/**
 * The brief's worked example: a customer-support desk and the five tools a
 * ticket agent uses on it. The desk is an in-memory service (a few tickets,
 * knowledge-base articles and orders) so the demo runs offline and prints
 * the same thing every time; its mutable part (replies, closed tickets)
 * lives in a `Ref`, so turns that write are visible to the turns after them.
 *
 * Each tool carries the registry attributes the runtime schedules and shapes
 * by: reads are marked read-only (they may run together), writes are not
 * (they run alone), and the business rules the schema cannot express ("the
 * ticket must be open", "reply before closing") are `validate` checks that
 * fail with a `RuleViolation` the model can act on.
 *
 * @since 0.1.0
 */
import * as ArtifactStore from "@tool-runtime/core/ArtifactStore"
import * as Tool from "@tool-runtime/core/Tool"
import * as ToolError from "@tool-runtime/core/ToolError"
import * as ToolRuntime from "@tool-runtime/core/ToolRuntime"
import * as Context from "effect/Context"
import * as Data from "effect/Data"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Ref from "effect/Ref"
import * as Schema from "effect/Schema"

// ---------------------------------------------------------------------------
// data
// ---------------------------------------------------------------------------

/**
 * @since 0.1.0
 * @category models
 */
export interface Message {
  readonly from: "customer" | "agent"
  readonly text: string
}

/**
 * @since 0.1.0
 * @category models
 */
export interface Ticket {
  readonly id: string
  readonly subject: string
  readonly customer: string
  readonly orderId: string | undefined
  readonly status: "open" | "closed"
  readonly resolution: string | undefined
  readonly messages: ReadonlyArray<Message>
}

/**
 * @since 0.1.0
 * @category models
 */
export interface Article {
  readonly id: string
  readonly title: string
  readonly body: string
  readonly tags: ReadonlyArray<string>
}

/**
 * @since 0.1.0
 * @category models
 */
export interface Order {
  readonly id: string
  readonly customer: string
  readonly items: ReadonlyArray<{ readonly sku: string; readonly name: string; readonly quantity: number }>
  readonly total: string
  readonly status: string
}

const seedTickets: ReadonlyArray<Ticket> = [
  {
    id: "T-1001",
    subject: "Blender arrived with a cracked jar",
    customer: "Ada Park",
    orderId: "O-5001",
    status: "open",
    resolution: undefined,
    messages: [{
      from: "customer",
      text: "My blender arrived yesterday and the glass jar is cracked. Can I get a replacement?"
    }]
  },
  {
    id: "T-1002",
    subject: "Where is my refund?",
    customer: "Lin Okafor",
    orderId: "O-5002",
    status: "open",
    resolution: undefined,
    messages: [{ from: "customer", text: "I returned the pan set two weeks ago and have not seen the refund yet." }]
  },
  {
    id: "T-1003",
    subject: "Change delivery address",
    customer: "Sam Reyes",
    orderId: "O-5003",
    status: "closed",
    resolution: "resolved",
    messages: [
      { from: "customer", text: "Please ship to my office instead." },
      { from: "agent", text: "Done: the parcel now goes to your office address." }
    ]
  }
]

/**
 * The knowledge base the agent searches.
 *
 * @since 0.1.0
 * @category data
 */
export const articles: ReadonlyArray<Article> = [
  {
    id: "KB-101",
    title: "Items damaged on arrival",
    body: "Offer a free replacement, shipped within 2 business days. Ask for a photo only for orders over 500 USD. " +
      "The customer does not need to return the damaged item.",
    tags: ["damaged", "cracked", "broken", "replacement", "arrival"]
  },
  {
    id: "KB-102",
    title: "Refund timelines",
    body: "Refunds go to the original payment method within 5 business days of approval; " +
      "banks can take another 3 to 5 days to show them.",
    tags: ["refund", "return", "payment"]
  },
  {
    id: "KB-103",
    title: "Changing a delivery address",
    body: "The address can change until the parcel ships. After that, offer a carrier redirect.",
    tags: ["address", "delivery", "shipping"]
  },
  {
    id: "KB-104",
    title: "Small appliance warranty",
    body: "Blenders, toasters and kettles carry a 2-year warranty against defects. " +
      "Damage in transit is handled as damaged on arrival (KB-101), not as a warranty claim.",
    tags: ["warranty", "appliance", "blender", "defect"]
  }
]

const orders: ReadonlyArray<Order> = [
  {
    id: "O-5001",
    customer: "Ada Park",
    items: [{ sku: "BL-200", name: "Blender Pro 200", quantity: 1 }],
    total: "129.00 USD",
    status: "delivered"
  },
  {
    id: "O-5002",
    customer: "Lin Okafor",
    items: [{ sku: "PN-310", name: "Ceramic pan set", quantity: 1 }],
    total: "89.50 USD",
    status: "returned, refund approved"
  },
  {
    id: "O-5003",
    customer: "Sam Reyes",
    items: [{ sku: "KT-020", name: "Electric kettle", quantity: 2 }],
    total: "58.00 USD",
    status: "shipped"
  }
]

// ---------------------------------------------------------------------------
// service
// ---------------------------------------------------------------------------

/**
 * @since 0.1.0
 * @category errors
 */
export class NotFound extends Data.TaggedError("NotFound")<{
  readonly kind: "ticket" | "order"
  readonly id: string
}> {
  override get message() {
    return `No ${this.kind} has the id ${this.id}.`
  }
}

/**
 * @since 0.1.0
 * @category models
 */
export interface Service {
  readonly ticket: (id: string) => Effect.Effect<Ticket, NotFound>
  /** Articles that share words with the query, best first. */
  readonly search: (query: string, limit: number) => Effect.Effect<ReadonlyArray<Article>>
  readonly order: (id: string) => Effect.Effect<Order, NotFound>
  /** Appends an agent message; returns how many agent replies the ticket now has. */
  readonly reply: (ticketId: string, text: string) => Effect.Effect<number, NotFound>
  readonly close: (ticketId: string, resolution: string) => Effect.Effect<Ticket, NotFound>
}

/**
 * @since 0.1.0
 * @category tags
 */
export class SupportDesk extends Context.Tag("@tool-runtime/cli/SupportDesk")<SupportDesk, Service>() {}

const words = (text: string): ReadonlyArray<string> => text.toLowerCase().match(/[a-z0-9]{3,}/g) ?? []

const score = (article: Article, query: ReadonlyArray<string>): number => {
  const haystack = new Set([...words(article.title), ...words(article.body), ...article.tags])
  // Tags are curated, so a tag hit counts more than a word in the body.
  return query.reduce((sum, word) => sum + (article.tags.includes(word) ? 2 : haystack.has(word) ? 1 : 0), 0)
}

/**
 * A fresh desk with the seed data.
 *
 * @since 0.1.0
 * @category constructors
 */
export const make: Effect.Effect<Service> = Effect.map(
  Ref.make<ReadonlyMap<string, Ticket>>(new Map(seedTickets.map((t) => [t.id, t]))),
  (tickets): Service => {
    const ticket = (id: string) =>
      Effect.flatMap(Ref.get(tickets), (all) => {
        const found = all.get(id)
        return found === undefined ? Effect.fail(new NotFound({ kind: "ticket", id })) : Effect.succeed(found)
      })
    const update = <A>(id: string, f: (ticket: Ticket) => readonly [A, Ticket]) =>
      Effect.flatMap(
        Ref.modify(tickets, (all): readonly [A | undefined, ReadonlyMap<string, Ticket>] => {
          const found = all.get(id)
          if (found === undefined) return [undefined, all]
          const [a, next] = f(found)
          return [a, new Map(all).set(id, next)]
        }),
        (a) => a === undefined ? Effect.fail(new NotFound({ kind: "ticket", id })) : Effect.succeed(a)
      )
    return {
      ticket,
      search: (query, limit) =>
        Effect.sync(() => {
          const terms = words(query)
          return articles
            .map((article) => [article, score(article, terms)] as const)
            .filter(([, s]) => s > 0)
            .sort((a, b) => b[1] - a[1] || (a[0].id < b[0].id ? -1 : 1))
            .slice(0, limit)
            .map(([article]) => article)
        }),
      order: (id) => {
        const found = orders.find((o) => o.id === id)
        return found === undefined ? Effect.fail(new NotFound({ kind: "order", id })) : Effect.succeed(found)
      },
      reply: (ticketId, text) =>
        update(ticketId, (t) => {
          const messages = [...t.messages, { from: "agent" as const, text }]
          return [agentReplies(messages), { ...t, messages }]
        }),
      close: (ticketId, resolution) =>
        update(ticketId, (t) => {
          const closed: Ticket = { ...t, status: "closed", resolution }
          return [closed, closed]
        })
    }
  }
)

/**
 * @since 0.1.0
 * @category layers
 */
export const layer: Layer.Layer<SupportDesk> = Layer.effect(SupportDesk, make)

const agentReplies = (messages: ReadonlyArray<Message>) => messages.filter((m) => m.from === "agent").length

// ---------------------------------------------------------------------------
// tools
// ---------------------------------------------------------------------------

// The desk answers instantly; these stand for the round trip to a real
// helpdesk API, so that the demo's timeline shows what ran together.
const latency = {
  queryTicket: "200 millis",
  searchScan: "150 millis",
  searchRank: "200 millis",
  queryOrder: "150 millis",
  reply: "250 millis",
  close: "150 millis"
} as const

const TicketId = Schema.String.pipe(Schema.pattern(/^T-\d{4}$/)).annotations({
  description: "The ticket id, as shown in the ticket: \"T-\" and four digits, for example T-1001."
})

/** The ticket exists and is open; the check both writes share. */
const openTicket = (ticketId: string) =>
  Effect.flatMap(SupportDesk, (desk) => desk.ticket(ticketId)).pipe(
    Effect.catchTag("NotFound", () =>
      Effect.fail(
        new ToolError.RuleViolation({
          reason: `ticket ${ticketId} does not exist`,
          fix: "Check the ticket id with query_ticket; do not guess ids."
        })
      )),
    Effect.filterOrFail(
      (ticket) => ticket.status === "open",
      (ticket) =>
        new ToolError.RuleViolation({
          reason: `ticket ${ticket.id} is closed`,
          fix: "Closed tickets take no replies and cannot be closed again; tell the user instead."
        })
    )
  )

/**
 * Reads one ticket with its conversation so far.
 *
 * @since 0.1.0
 * @category tools
 */
export const queryTicket = Tool.make("query_ticket", {
  description: "Reads a support ticket: subject, customer, status, linked order and every message so far.",
  parameters: { ticketId: TicketId },
  readOnly: true,
  timeout: "10 seconds",
  outputLimit: 4_000,
  risk: "low",
  handler: ({ ticketId }) =>
    Effect.zipRight(Effect.sleep(latency.queryTicket), Effect.flatMap(SupportDesk, (desk) => desk.ticket(ticketId)))
})

/**
 * Full-text search over the help articles.
 *
 * @since 0.1.0
 * @category tools
 */
export const searchKnowledgeBase = Tool.make("search_knowledge_base", {
  description: "Searches the internal help articles (policies and procedures) and returns the best matches.",
  parameters: {
    query: Schema.NonEmptyTrimmedString.annotations({
      description: "What to look for, in plain words, for example \"damaged on arrival replacement\"."
    }),
    limit: Schema.optionalWith(
      Schema.Int.pipe(Schema.between(1, 5)).annotations({
        description: "How many articles to return, 1 to 5. Default 3."
      }),
      { default: () => 3 }
    )
  },
  readOnly: true,
  timeout: "15 seconds",
  // A search engine that stops answering is stuck long before 15 s are up.
  idleTimeout: "5 seconds",
  outputLimit: 8_000,
  risk: "low",
  handler: ({ limit, query }, context) =>
    Effect.gen(function*() {
      const desk = yield* SupportDesk
      yield* Effect.sleep(latency.searchScan)
      yield* context.progress(`scanned ${articles.length} articles`)
      yield* Effect.sleep(latency.searchRank)
      const found = yield* desk.search(query, limit)
      // Tags only steer ranking; the model needs the text.
      return found.map(({ body, id, title }) => ({ id, title, body }))
    })
})

/**
 * Reads one order.
 *
 * @since 0.1.0
 * @category tools
 */
export const queryOrder = Tool.make("query_order", {
  description: "Reads an order: customer, items, total and delivery status.",
  parameters: {
    orderId: Schema.String.pipe(Schema.pattern(/^O-\d{4}$/)).annotations({
      description: "The order id: \"O-\" and four digits, for example O-5001 (tickets link their order)."
    })
  },
  readOnly: true,
  timeout: "10 seconds",
  outputLimit: 4_000,
  risk: "low",
  handler: ({ orderId }) =>
    Effect.zipRight(Effect.sleep(latency.queryOrder), Effect.flatMap(SupportDesk, (desk) => desk.order(orderId)))
})

/**
 * Sends a message to the customer: a write the customer sees, so it runs
 * alone and only on an open ticket.
 *
 * @since 0.1.0
 * @category tools
 */
export const replyToCustomer = Tool.make("reply_to_customer", {
  description: "Sends a message to the customer on an open ticket. The customer reads it at once: be accurate.",
  parameters: {
    ticketId: TicketId,
    message: Schema.String.pipe(Schema.minLength(1), Schema.maxLength(2_000)).annotations({
      description: "The reply, in plain text, 1 to 2,000 characters, addressed to the customer."
    })
  },
  timeout: "30 seconds",
  outputLimit: 1_000,
  risk: "medium",
  validate: ({ ticketId }) => Effect.asVoid(openTicket(ticketId)),
  handler: ({ message, ticketId }) =>
    Effect.gen(function*() {
      const desk = yield* SupportDesk
      yield* Effect.sleep(latency.reply)
      const replies = yield* desk.reply(ticketId, message)
      return `Reply sent on ticket ${ticketId} (${replies} agent ${replies === 1 ? "reply" : "replies"} so far).`
    })
})

/**
 * Closes a ticket. The riskiest tool: a closed ticket leaves the queue, so
 * it may only close a ticket the customer has been answered on.
 *
 * @since 0.1.0
 * @category tools
 */
export const closeTicket = Tool.make("close_ticket", {
  description: "Closes an open ticket once the customer has been answered. Closed tickets leave the queue.",
  parameters: {
    ticketId: TicketId,
    resolution: Schema.Literal("resolved", "duplicate", "no_response").annotations({
      description: "Why the ticket closes: resolved, duplicate or no_response."
    })
  },
  timeout: "15 seconds",
  outputLimit: 1_000,
  risk: "high",
  validate: ({ ticketId }) =>
    Effect.flatMap(openTicket(ticketId), (ticket) =>
      agentReplies(ticket.messages) > 0 ? Effect.void : Effect.fail(
        new ToolError.RuleViolation({
          reason: `ticket ${ticketId} has no reply to the customer yet`,
          fix: `Answer the customer with reply_to_customer first, then close ticket ${ticketId}.`
        })
      )),
  handler: ({ resolution, ticketId }) =>
    Effect.gen(function*() {
      const desk = yield* SupportDesk
      yield* Effect.sleep(latency.close)
      const ticket = yield* desk.close(ticketId, resolution)
      return `Ticket ${ticket.id} is closed (${resolution}).`
    })
})

/**
 * Everything the agent is given, in the order the model is shown it. The
 * paging tool lets a model told "output truncated" read the rest.
 *
 * @since 0.1.0
 * @category tools
 */
export const tools = [
  queryTicket,
  searchKnowledgeBase,
  queryOrder,
  replyToCustomer,
  closeTicket,
  ArtifactStore.readTool
] as const

/**
 * The runtime over the desk's tools, with a fresh desk.
 *
 * @since 0.1.0
 * @category layers
 */
export const layerRuntime: Layer.Layer<ToolRuntime.ToolRuntime> = ToolRuntime.layerDefault(tools).pipe(
  Layer.provide(layer),
  // The tool list is fixed and valid: a failure here is a bug, not an input error.
  Layer.orDie
)
