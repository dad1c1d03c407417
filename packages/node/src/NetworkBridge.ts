/**
 * The bridge: a tiny Node program run inside the sandbox's network
 * namespace that listens on `127.0.0.1:<port>`, forwards every connection
 * to the proxy's UNIX socket, and runs the command behind it with the
 * proxy variables pointing at itself.
 *
 * Apart because it runs on the other side of the namespace, as source
 * handed to `node -e`: nothing of the proxy's own code reaches it, and it
 * reaches nothing of the proxy's but the socket.
 *
 * @since 0.4.0
 */

/**
 * The bridge, run by `node -e` inside the sandbox with the arguments
 * `socketPath port command ...args`. Self-contained, CommonJS, no file to
 * resolve; it loads only `net` and `child_process`, which Node has compiled
 * in, so it adds little more than Node's own start.
 *
 * Exit codes are the wrapped command's; the bridge's own failures use the
 * shell's conventions: 125 cannot listen, 126 cannot run the command, 127
 * no such command. A command killed by a signal makes the bridge die of the
 * same signal; for the signals Node keeps for itself (SIGPIPE, SIGUSR1) it
 * exits with 128 + the signal number. The signal handlers are installed
 * first, so a SIGTERM that comes before the command exists ends the bridge
 * (as it would have ended the command) rather than orphaning it.
 */
const bridgeSource = `"use strict";
const net = require("net"), cp = require("child_process"), os = require("os");
const [socketPath, port, command, ...args] = process.argv.slice(1);
const signals = ["SIGTERM", "SIGINT", "SIGHUP"];
let child;
const fail = (code, text) => { process.stderr.write("network bridge: " + text + "\\n"); process.exit(code); };
const die = (signal) => {
  for (const s of signals) process.removeAllListeners(s);
  process.kill(process.pid, signal);
  setTimeout(() => process.exit(128 + (os.constants.signals[signal] || 0)), 100);
};
for (const signal of signals) process.on(signal, () => (child === undefined ? die(signal) : child.kill(signal)));
const server = net.createServer({ allowHalfOpen: true }, (client) => {
  const upstream = net.connect({ path: socketPath, allowHalfOpen: true });
  const end = () => { client.destroy(); upstream.destroy(); };
  client.on("error", end); upstream.on("error", end);
  client.on("close", end); upstream.on("close", end);
  client.pipe(upstream); upstream.pipe(client);
});
server.on("error", (error) => fail(125, "cannot listen on 127.0.0.1:" + port + " (" + error.code + ")"));
server.listen(Number(port), "127.0.0.1", () => {
  child = cp.spawn(command, args, { stdio: "inherit" });
  child.on("error", (error) =>
    fail(error.code === "ENOENT" ? 127 : 126, "cannot run " + JSON.stringify(command) + " (" + error.code + ")"));
  child.on("exit", (code, signal) => (signal === null ? process.exit(code) : die(signal)));
});
`

/**
 * What the bridge needs: the proxy's socket as the sandbox sees it, the
 * port to listen on inside the sandbox's namespace, and the command to run.
 *
 * @since 0.3.0
 * @category models
 */
export interface BridgeOptions {
  readonly socketPath: string
  readonly port: number
  readonly command: string
  readonly args: ReadonlyArray<string>
}

/**
 * @since 0.3.0
 * @category models
 */
export interface BridgeLaunch {
  readonly command: string
  readonly args: ReadonlyArray<string>
  readonly env: Record<string, string>
}

/**
 * A launch that, run inside the sandbox, listens on `127.0.0.1:port`
 * forwarding to the proxy's socket, and only then runs the command (stdio
 * inherited, SIGTERM/SIGINT/SIGHUP passed on, its exit code or signal
 * passed back). The environment points every proxy variable at the bridge
 * and empties `NO_PROXY`, so that no host is tried directly. Node's own
 * `fetch` and `http` ignore these variables unless `NODE_USE_ENV_PROXY=1`
 * is set (Node 24; Node 22 warns about it on stderr), which is left to the
 * caller.
 *
 * @since 0.3.0
 * @category bridge
 */
export const bridge = (options: BridgeOptions): BridgeLaunch => {
  const url = `http://127.0.0.1:${options.port}`
  return {
    command: process.execPath,
    args: ["-e", bridgeSource, "--", options.socketPath, String(options.port), options.command, ...options.args],
    env: {
      HTTP_PROXY: url,
      HTTPS_PROXY: url,
      http_proxy: url,
      https_proxy: url,
      ALL_PROXY: url,
      all_proxy: url,
      NO_PROXY: "",
      // Not NODE_USE_ENV_PROXY: Node 22 answers it with an experimental
      // warning on the stderr of every Node program, the bridge included.
      no_proxy: ""
    }
  }
}
