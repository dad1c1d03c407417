/**
 * The runtime over a cluster: runner processes that host sessions and run
 * their turns, and clients whose `ToolRuntime` sends each turn to the
 * runner that holds its session. All of them meet in one storage (an SQLite
 * file on one machine, PostgreSQL across several), which holds the
 * cluster's own tables (runners, shard locks, messages and replies) and the
 * call journal.
 *
 * ```text
 *   client (runTurn)                          runners (cluster runner)
 *   ────────────────                          ────────────────────────
 *   ToolRuntime ── RunTurn(session, turn) ──▶ the session's entity, on the
 *        │         persisted first            runner that holds its shard
 *        │                                          │ core's runtime, per call:
 *        │                                          │ journal.begin → handler → journal.finish
 *        ▼                                          ▼
 *   ┌──────────────────────── storage ─────────────────────────┐
 *   │ cluster_runners, cluster_locks   who is up, who holds what │
 *   │ cluster_messages, cluster_replies turns sent, answers     │
 *   │ tr_calls, tr_call_events          each call, its history  │
 *   └───────────────────────────────────────────────────────────┘
 * ```
 *
 * A runner that dies stops renewing its shard locks; once they expire the
 * other runners take its shards, find its unanswered turns in the message
 * storage and run them again, where the journal answers each call by its
 * rules (`Durable`). The client waiting on the turn sees nothing of this
 * but the time it took.
 *
 * @since 0.5.0
 */
import * as RunnerAddress from "@effect/cluster/RunnerAddress"
import * as RunnerHealth from "@effect/cluster/RunnerHealth"
import * as Runners from "@effect/cluster/Runners"
import * as ShardingConfig from "@effect/cluster/ShardingConfig"
import * as SocketRunner from "@effect/cluster/SocketRunner"
import * as SqlMessageStorage from "@effect/cluster/SqlMessageStorage"
import * as SqlRunnerStorage from "@effect/cluster/SqlRunnerStorage"
import * as NodeClusterSocket from "@effect/platform-node/NodeClusterSocket"
import type * as SocketServer from "@effect/platform/SocketServer"
import * as RpcSerialization from "@effect/rpc/RpcSerialization"
import type * as Migrator from "@effect/sql/Migrator"
import type { SqlError } from "@effect/sql/SqlError"
import type * as ArtifactStore from "@tool-runtime/core/ArtifactStore"
import type * as Policy from "@tool-runtime/core/Policy"
import type * as Redactor from "@tool-runtime/core/Redactor"
import type * as Registry from "@tool-runtime/core/Registry"
import * as ToolRuntime from "@tool-runtime/core/ToolRuntime"
import * as Duration from "effect/Duration"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as CallJournal from "./CallJournal.js"
import type * as Durable from "./Durable.js"
import * as DurableRuntime from "./DurableRuntime.js"
import * as SessionClient from "./SessionClient.js"
import * as SessionEntity from "./SessionEntity.js"
import * as Storage from "./Storage.js"

/**
 * How fast the cluster notices a runner's death, and how long a moving
 * session may take to finish its turn. Every process of a cluster must use
 * the same values.
 *
 * @since 0.5.0
 * @category models
 */
export interface Timing {
  /**
   * How long a runner's shard locks and heartbeat last without renewal: a
   * dead runner's sessions move after about this long. Default 15 s.
   */
  readonly lockExpiration?: Duration.DurationInput | undefined
  /** How often runners re-read who is up and rebuild the session placement. Default 3 s. */
  readonly refreshAssignments?: Duration.DurationInput | undefined
  /** How often a runner pings the others to find a dead one before its locks expire. Default 10 s. */
  readonly healthCheck?: Duration.DurationInput | undefined
  /** How often a runner reads the storage for turns sent to its sessions. Default 2 s. */
  readonly messagePoll?: Duration.DurationInput | undefined
  /**
   * How long a session moving between live runners (one joined, or one is
   * shutting down) may take to finish its turn before it is interrupted.
   * Keep it above the longest tool timeout: an interrupted write is
   * `outcome_unknown` though no runner died. Default 10 minutes.
   */
  readonly drain?: Duration.DurationInput | undefined
  /** Shards the sessions are spread over; the same in every process. Default 300. */
  readonly shards?: number | undefined
}

/**
 * Timing for tests and demos on one machine: a dead runner's sessions move
 * within a few seconds.
 *
 * @since 0.5.0
 * @category models
 */
export const fastTiming: Timing = {
  lockExpiration: "4 seconds",
  refreshAssignments: "500 millis",
  healthCheck: "1 second",
  messagePoll: "500 millis",
  drain: "30 seconds",
  shards: 30
}

const shardingConfig = (
  timing: Timing | undefined,
  address: Option.Option<RunnerAddress.RunnerAddress>
): ShardingConfig.ShardingConfig["Type"] => {
  const expiration = Duration.decode(timing?.lockExpiration ?? "15 seconds")
  return {
    ...ShardingConfig.defaults,
    runnerAddress: address,
    shardsPerGroup: timing?.shards ?? 300,
    shardLockExpiration: expiration,
    shardLockRefreshInterval: Duration.divide(expiration, 3).pipe(Option.getOrElse(() => Duration.seconds(1))),
    refreshAssignmentsInterval: timing?.refreshAssignments ?? "3 seconds",
    runnerHealthCheckInterval: timing?.healthCheck ?? "10 seconds",
    entityMessagePollInterval: timing?.messagePoll ?? "2 seconds",
    entityTerminationTimeout: timing?.drain ?? "10 minutes"
  }
}

/**
 * The cluster's runner side over a storage, configured from our options
 * alone (`NodeClusterSocket.layer` reads unprefixed environment variables
 * such as `HOST` and `PORT`, which a runner's environment may hold for
 * something else).
 */
const runnerCluster = (config: ShardingConfig.ShardingConfig["Type"]) =>
  SocketRunner.layer.pipe(
    Layer.provide(
      RunnerHealth.layerPing.pipe(
        Layer.provide(Runners.layerRpc),
        Layer.provide(NodeClusterSocket.layerClientProtocol)
      )
    ),
    Layer.provide([NodeClusterSocket.layerSocketServer, NodeClusterSocket.layerClientProtocol]),
    Layer.provideMerge(SqlMessageStorage.layer),
    Layer.provide(SqlRunnerStorage.layer),
    Layer.provide(ShardingConfig.layer(config)),
    Layer.provide(RpcSerialization.layerMsgPack)
  )

const clientCluster = (config: ShardingConfig.ShardingConfig["Type"]) =>
  SocketRunner.layerClientOnly.pipe(
    Layer.provide(NodeClusterSocket.layerClientProtocol),
    Layer.provideMerge(SqlMessageStorage.layer),
    Layer.provide(SqlRunnerStorage.layer),
    Layer.provide(ShardingConfig.layer(config)),
    Layer.provide(RpcSerialization.layerMsgPack)
  )

/**
 * @since 0.5.0
 * @category models
 */
export interface RunnerOptions {
  readonly storage: Storage.Spec
  /** The address other runners and clients reach this runner at. */
  readonly host: string
  readonly port: number
  /** Who runs the calls, as the journal's history names them. Default: `host:port` and the process id. */
  readonly runnerId?: string | undefined
  readonly timing?: Timing | undefined
  readonly limits?: Durable.Limits | undefined
  readonly runtime?: ToolRuntime.Options | undefined
  readonly sqlite?: Omit<Storage.SqliteOptions, "filename"> | undefined
  readonly postgres?: Omit<Storage.PostgresOptions, "url"> | undefined
  /** How long a session's entity stays in memory with no turn. */
  readonly sessionIdleTime?: Duration.DurationInput | undefined
}

/**
 * A runner: listens on `host:port`, registers in the storage, takes its
 * share of the sessions, and runs their turns on core's runtime made
 * durable by the journal. The tools, the policy, the redactor and the
 * artifact store are the caller's, as for `ToolRuntime.layer`; every runner
 * of a cluster must have the same tools.
 *
 * @since 0.5.0
 * @category layers
 */
export const layerRunner = (
  options: RunnerOptions
): Layer.Layer<
  never,
  Storage.StorageError | SqlError | Migrator.MigrationError | SocketServer.SocketServerError,
  Registry.Registry | Policy.Policy | Redactor.Redactor | ArtifactStore.ArtifactStore
> => {
  // Port 0 would listen somewhere and register an address nobody can reach.
  if (!Number.isInteger(options.port) || options.port < 1 || options.port > 65_535) {
    return Layer.die(new Error(`a runner's port must be a whole number from 1 to 65535, got ${options.port}`))
  }
  const address = RunnerAddress.make(options.host, options.port)
  const runnerId = options.runnerId ?? `${options.host}:${options.port}/${process.pid}`
  const runtime = ToolRuntime.layer(options.runtime).pipe(
    Layer.provide(DurableRuntime.journalLayer({ runnerId })),
    Layer.provide(CallJournal.layer(options.limits))
  )
  return SessionEntity.layer({ maxIdleTime: options.sessionIdleTime }).pipe(
    Layer.provide(runtime),
    Layer.provide(runnerCluster(shardingConfig(options.timing, Option.some(address)))),
    Layer.provide(Storage.layer(options.storage, { ...options.sqlite, postgres: options.postgres }))
  )
}

/**
 * @since 0.5.0
 * @category models
 */
export interface ClientOptions extends SessionClient.Options {
  readonly storage: Storage.Spec
  readonly timing?: Timing | undefined
  readonly sqlite?: Omit<Storage.SqliteOptions, "filename"> | undefined
  readonly postgres?: Omit<Storage.PostgresOptions, "url"> | undefined
}

/**
 * A `ToolRuntime` whose turns run on the cluster's runners: `runTurn` sends
 * the turn to the runner holding its session (`sessionId` and `turnId` are
 * required) and returns its results, one per call, in order, whatever
 * happens to the runners or the storage. `plan`, `registry`, `redact` and
 * `readArtifact` answer locally from the caller's services, which should be
 * the runners' tools and rules. Also the `CallJournal`, to list a session's
 * calls (`listSession`).
 *
 * @since 0.5.0
 * @category layers
 */
export const layerClient = (
  options: ClientOptions
): Layer.Layer<
  ToolRuntime.ToolRuntime | CallJournal.CallJournal,
  Storage.StorageError | SqlError | Migrator.MigrationError,
  Registry.Registry | Policy.Policy | Redactor.Redactor | ArtifactStore.ArtifactStore
> =>
  Layer.effect(ToolRuntime.ToolRuntime, SessionClient.make(options)).pipe(
    Layer.provide(ToolRuntime.layer(options.runtime)),
    Layer.provide(clientCluster(shardingConfig(options.timing, Option.none()))),
    Layer.provideMerge(CallJournal.layer(options.limits)),
    Layer.provide(Storage.layer(options.storage, { ...options.sqlite, postgres: options.postgres }))
  )
