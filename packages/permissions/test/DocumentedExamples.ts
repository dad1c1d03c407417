/**
 * Every permission example the official Claude Code documentation gives, as
 * data: the rules, the mode, the call the model makes, and what the docs say
 * happens. Sources are the English pages at code.claude.com/docs/en/... (the
 * copy read was dated 2026-08-22) and, where marked, the older
 * docs.anthropic.com/en/docs/claude-code/iam page (2025). The workspace root is
 * the current directory; "~" is the home directory. Rules are taken as project
 * (or session) rules, so a `/path` rule anchors at the project root = cwd.
 *
 * Cases where the docs are ambiguous, or where doc versions disagree without
 * saying which version behaves how, are left out on purpose.
 */

export interface Example {
  /** Page URL plus section heading, e.g. "code.claude.com/docs/en/permissions#wildcard-patterns" */
  readonly source: string
  /** The documentation's own words for this case, short (<= 200 chars), verbatim where possible. */
  readonly quote: string
  readonly allow?: ReadonlyArray<string>
  readonly ask?: ReadonlyArray<string>
  readonly deny?: ReadonlyArray<string>
  readonly mode?: "default" | "acceptEdits" | "plan" | "bypassPermissions" | "dontAsk"
  /** What the model calls. Paths are relative to the workspace (project root = cwd) unless absolute; "~" is the home directory. */
  readonly call:
    | { readonly tool: "Bash"; readonly command: string }
    | { readonly tool: "Read" | "Edit" | "Write"; readonly path: string }
    | { readonly tool: "WebFetch"; readonly url: string }
    | { readonly tool: "mcp"; readonly name: string } // e.g. mcp__github__create_issue
  /** What the documentation says happens. "ask" = the person is prompted; "deny" = refused; "allow" = runs without a prompt. */
  readonly expected: "allow" | "ask" | "deny"
}

/** An example that also involves PreToolUse hooks, each returning the given permissionDecision. */
export interface HookExample extends Example {
  readonly hooks: ReadonlyArray<"allow" | "ask" | "deny">
}

const PERMISSIONS = "code.claude.com/docs/en/permissions"
const MODES = "code.claude.com/docs/en/permission-modes"
const TOOLS = "code.claude.com/docs/en/tools-reference"
const SECURITY = "code.claude.com/docs/en/security"
const HOOKS = "code.claude.com/docs/en/hooks"
const SETTINGS = "code.claude.com/docs/en/settings"
const SETTINGS_REFERENCE = "code.claude.com/docs/en/settings-reference"
const OLD_IAM = "docs.anthropic.com/en/docs/claude-code/iam"

const bash = (command: string) => ({ tool: "Bash", command }) as const
const read = (path: string) => ({ tool: "Read", path }) as const
const edit = (path: string) => ({ tool: "Edit", path }) as const
const write = (path: string) => ({ tool: "Write", path }) as const
const fetch = (url: string) => ({ tool: "WebFetch", url }) as const
const mcp = (name: string) => ({ tool: "mcp", name }) as const

/** The allow/deny configuration shown under "Wildcard patterns". */
const wildcardConfig = {
  allow: ["Bash(npm run *)", "Bash(git commit *)", "Bash(git * main)", "Bash(* --version)", "Bash(* --help *)"],
  deny: ["Bash(git push *)"]
} as const

export const examples: ReadonlyArray<Example> = [
  // ---------------------------------------------------------------- precedence
  {
    source: `${PERMISSIONS}#manage-permissions`,
    quote:
      "A broad deny rule like `Bash(aws *)` blocks every matching call, including calls that also match a narrower allow rule like `Bash(aws s3 ls)`",
    allow: ["Bash(aws s3 ls)"],
    deny: ["Bash(aws *)"],
    call: bash("aws s3 ls"),
    expected: "deny"
  },
  {
    source: `${PERMISSIONS}#manage-permissions`,
    quote:
      "a matching ask rule prompts even when a more specific allow rule also matches the same call (rules chosen to mirror the aws deny example)",
    allow: ["Bash(aws s3 ls)"],
    ask: ["Bash(aws *)"],
    call: bash("aws s3 ls"),
    expected: "ask"
  },
  {
    source: `${PERMISSIONS}#manage-permissions`,
    quote:
      "Rules are evaluated in order: deny, then ask, then allow. The first match in that order determines the outcome",
    allow: ["Bash(rm *)"],
    ask: ["Bash(rm *)"],
    deny: ["Bash(rm *)"],
    call: bash("rm -rf build"),
    expected: "deny"
  },
  {
    source: `${PERMISSIONS}#manage-permissions`,
    quote: "Rules are evaluated in order: deny, then ask, then allow. (ask and allow both match; no deny)",
    allow: ["Bash(rm *)"],
    ask: ["Bash(rm *)"],
    call: bash("rm -rf build"),
    expected: "ask"
  },
  {
    source: `${PERMISSIONS}#manage-permissions`,
    quote:
      "A scoped rule like `Bash(rm *)` leaves the tool available and blocks matching calls when Claude attempts them.",
    deny: ["Bash(rm *)"],
    call: bash("rm -rf build"),
    expected: "deny"
  },
  {
    source: `${PERMISSIONS}#manage-permissions`,
    quote: "A bare tool name like `Bash` removes the tool from Claude's context entirely, so Claude never sees it.",
    deny: ["Bash"],
    call: bash("npm test"),
    expected: "deny"
  },
  {
    source: `${PERMISSIONS}#settings-precedence`,
    quote:
      "if user settings allow a permission and project settings deny it, the deny rule blocks it (scopes merged here into one rule set)",
    allow: ["Bash(npm publish *)"],
    deny: ["Bash(npm publish *)"],
    call: bash("npm publish --tag next"),
    expected: "deny"
  },

  // ------------------------------------------------------ match all uses of a tool
  {
    source: `${PERMISSIONS}#match-all-uses-of-a-tool`,
    quote: "`Bash` | Matches all Bash commands",
    allow: ["Bash"],
    call: bash("npm install"),
    expected: "allow"
  },
  {
    source: `${PERMISSIONS}#match-all-uses-of-a-tool`,
    quote: "`Bash(*)` is equivalent to `Bash` and matches all Bash commands.",
    allow: ["Bash(*)"],
    call: bash("npm install"),
    expected: "allow"
  },
  {
    source: `${PERMISSIONS}#match-all-uses-of-a-tool`,
    quote: "`Bash(*)` is equivalent to `Bash` ... As a deny rule, both forms remove the tool from Claude's context.",
    deny: ["Bash(*)"],
    call: bash("npm install"),
    expected: "deny"
  },
  {
    source: `${PERMISSIONS}#match-all-uses-of-a-tool`,
    quote: "`WebFetch` | Matches all web fetch requests",
    allow: ["WebFetch"],
    call: fetch("https://example.org/page"),
    expected: "allow"
  },
  {
    source: `${PERMISSIONS}#match-all-uses-of-a-tool`,
    quote: "`Read` | Matches all file reads (as a deny rule)",
    deny: ["Read"],
    call: read("README.md"),
    expected: "deny"
  },

  // ------------------------------------------------------------- specifiers
  {
    source: `${PERMISSIONS}#use-specifiers-for-fine-grained-control`,
    quote: "`Bash(npm run build)` | Matches the exact command `npm run build`",
    allow: ["Bash(npm run build)"],
    call: bash("npm run build"),
    expected: "allow"
  },
  {
    source: `${PERMISSIONS}#use-specifiers-for-fine-grained-control`,
    quote: "`Bash(npm run build)` | Matches the exact command `npm run build` (so not with extra arguments)",
    allow: ["Bash(npm run build)"],
    call: bash("npm run build --watch"),
    expected: "ask"
  },
  {
    source: `${PERMISSIONS}#use-specifiers-for-fine-grained-control`,
    quote: "`Read(./.env)` | Matches reading the `.env` file in the current directory",
    deny: ["Read(./.env)"],
    call: read(".env"),
    expected: "deny"
  },
  {
    source: `${PERMISSIONS}#use-specifiers-for-fine-grained-control`,
    quote: "`WebFetch(domain:example.com)` | Matches fetch requests to example.com",
    allow: ["WebFetch(domain:example.com)"],
    call: fetch("https://example.com/docs"),
    expected: "allow"
  },

  // ------------------------------------------------------- wildcard patterns
  {
    source: `${PERMISSIONS}#wildcard-patterns`,
    quote: "This configuration allows npm and git commit commands while blocking git push",
    ...wildcardConfig,
    call: bash("npm run lint"),
    expected: "allow"
  },
  {
    source: `${PERMISSIONS}#wildcard-patterns`,
    quote: "This configuration allows npm and git commit commands while blocking git push",
    ...wildcardConfig,
    call: bash("git commit -m \"fix typo\""),
    expected: "allow"
  },
  {
    source: `${PERMISSIONS}#wildcard-patterns`,
    quote:
      "This configuration allows npm and git commit commands while blocking git push (deny beats `Bash(git * main)`)",
    ...wildcardConfig,
    call: bash("git push origin main"),
    expected: "deny"
  },
  {
    source: `${PERMISSIONS}#wildcard-patterns`,
    quote: "This configuration allows ... `Bash(* --version)`",
    ...wildcardConfig,
    call: bash("node --version"),
    expected: "allow"
  },
  {
    source: `${PERMISSIONS}#wildcard-patterns`,
    quote: "This configuration allows ... `Bash(* --help *)`",
    ...wildcardConfig,
    call: bash("npm --help install"),
    expected: "allow"
  },
  {
    source: `${PERMISSIONS}#wildcard-patterns`,
    quote:
      "The `:*` suffix is an equivalent way to write a trailing wildcard, so `Bash(ls:*)` matches the same commands as `Bash(ls *)`.",
    deny: ["Bash(ls:*)"],
    call: bash("ls -la"),
    expected: "deny"
  },
  {
    source: `${PERMISSIONS}#wildcard-patterns`,
    quote: "`Bash(ls:*)` matches the same commands as `Bash(ls *)` (which matches `ls -la` but not `lsof`)",
    allow: ["Bash(lsof)"],
    deny: ["Bash(ls:*)"],
    call: bash("lsof"),
    expected: "allow"
  },
  {
    source: `${PERMISSIONS}#wildcard-patterns`,
    quote:
      "In a pattern like `Bash(git:* push)`, the colon is treated as a literal character and won't match git commands.",
    allow: ["Bash(git:* push)"],
    call: bash("git push"),
    expected: "ask"
  },

  // ------------------------------------------------------------ Bash rules
  {
    source: `${PERMISSIONS}#bash`,
    quote: "`Bash(npm run test *)` matches Bash commands starting with `npm run test`",
    allow: ["Bash(npm run test *)"],
    call: bash("npm run test --coverage"),
    expected: "allow"
  },
  {
    source: `${PERMISSIONS}#bash`,
    quote: "`Bash(npm *)` matches any command starting with `npm `",
    allow: ["Bash(npm *)"],
    call: bash("npm test"),
    expected: "allow"
  },
  {
    source: `${PERMISSIONS}#bash`,
    quote: "`Bash(npm *)` matches any command starting with `npm ` (so not `npx`)",
    allow: ["Bash(npm *)"],
    call: bash("npx tsc"),
    expected: "ask"
  },
  {
    source: `${PERMISSIONS}#bash`,
    quote: "`Bash(* install)` matches any command ending with ` install`",
    allow: ["Bash(* install)"],
    call: bash("npm install"),
    expected: "allow"
  },
  {
    source: `${PERMISSIONS}#bash`,
    quote: "`Bash(* install)` matches any command ending with ` install`",
    allow: ["Bash(* install)"],
    call: bash("pip install"),
    expected: "allow"
  },
  {
    source: `${PERMISSIONS}#bash`,
    quote: "`Bash(* install)` matches any command ending with ` install` (this one ends with `lodash`)",
    allow: ["Bash(* install)"],
    call: bash("npm install lodash"),
    expected: "ask"
  },
  {
    source: `${PERMISSIONS}#bash`,
    quote: "`Bash(git * main)` matches commands like `git checkout main` and `git log --oneline main`",
    allow: ["Bash(git * main)"],
    call: bash("git checkout main"),
    expected: "allow"
  },
  {
    source: `${PERMISSIONS}#bash`,
    quote: "`Bash(git * main)` matches commands like `git checkout main` and `git log --oneline main`",
    allow: ["Bash(git * main)"],
    call: bash("git log --oneline main"),
    expected: "allow"
  },
  {
    source: `${PERMISSIONS}#bash`,
    quote: "`Bash(git * main)` matches `git push origin main` as well as `git merge main`.",
    allow: ["Bash(git * main)"],
    call: bash("git push origin main"),
    expected: "allow"
  },
  {
    source: `${PERMISSIONS}#bash`,
    quote: "`Bash(git * main)` matches `git push origin main` as well as `git merge main`.",
    allow: ["Bash(git * main)"],
    call: bash("git merge main"),
    expected: "allow"
  },
  {
    source: `${PERMISSIONS}#bash`,
    quote:
      "A single `*` matches any sequence of characters including spaces ... `Bash(git *)` matches `git log --oneline --all`",
    deny: ["Bash(git *)"],
    call: bash("git log --oneline --all"),
    expected: "deny"
  },
  {
    source: `${PERMISSIONS}#bash`,
    quote: "For example, `Bash(ls *)` matches `ls -la` but not `lsof`.",
    deny: ["Bash(ls *)"],
    call: bash("ls -la"),
    expected: "deny"
  },
  {
    source: `${PERMISSIONS}#bash`,
    quote: "For example, `Bash(ls *)` matches `ls -la` but not `lsof`. (lsof is allowed by an exact rule here)",
    allow: ["Bash(lsof)"],
    deny: ["Bash(ls *)"],
    call: bash("lsof"),
    expected: "allow"
  },
  {
    source: `${PERMISSIONS}#bash`,
    quote: "it enforces a word boundary, requiring the prefix to be followed by a space or end-of-string",
    ask: ["Bash(ls *)"],
    call: bash("ls"),
    expected: "ask"
  },
  {
    source: `${PERMISSIONS}#bash`,
    quote: "`Bash(ls*)` without a space matches both `ls -la` and `lsof` because there's no word boundary constraint.",
    allow: ["Bash(lsof)"],
    deny: ["Bash(ls*)"],
    call: bash("lsof"),
    expected: "deny"
  },
  {
    source: `${PERMISSIONS}#bash`,
    quote: "`Bash(ls*)` without a space matches both `ls -la` and `lsof`",
    deny: ["Bash(ls*)"],
    call: bash("ls -la"),
    expected: "deny"
  },
  {
    source: `${PERMISSIONS}#bash`,
    quote:
      "Bash permission patterns that try to constrain command arguments are fragile ... Options before URL: `curl -X GET http://github.com/...`",
    allow: ["Bash(curl http://github.com/ *)"],
    call: bash("curl -X GET http://github.com/anthropics"),
    expected: "ask"
  },
  {
    source: `${PERMISSIONS}#bash`,
    quote:
      "`Bash(curl http://github.com/ *)` ... won't match variations like: ... Different protocol: `curl https://github.com/...`",
    allow: ["Bash(curl http://github.com/ *)"],
    call: bash("curl https://github.com/anthropics"),
    expected: "ask"
  },
  {
    source: `${PERMISSIONS}#bash`,
    quote:
      "`Bash(curl http://github.com/ *)` ... won't match variations like: ... Variables: `URL=http://github.com && curl $URL`",
    allow: ["Bash(curl http://github.com/ *)"],
    call: bash("URL=http://github.com && curl $URL"),
    expected: "ask"
  },
  {
    source: `${PERMISSIONS}#bash`,
    quote:
      "`Bash(curl http://github.com/ *)` ... won't match variations like: ... Extra spaces: `curl  http://github.com`",
    allow: ["Bash(curl http://github.com/ *)"],
    call: bash("curl  http://github.com/"),
    expected: "ask"
  },
  {
    source: `${SECURITY}#core-protections`,
    quote:
      "Commands that fetch content from the web such as `curl` and `wget` are not auto-approved by default. In Manual mode they prompt like any other non-read-only Bash command",
    call: bash("curl https://example.com"),
    expected: "ask"
  },
  {
    source: `${SECURITY}#core-protections`,
    quote: "you can still approve once or add an explicit allow rule like `Bash(curl *)`",
    allow: ["Bash(curl *)"],
    call: bash("curl https://example.com"),
    expected: "allow"
  },
  {
    source: `${SETTINGS_REFERENCE}#exclude-sensitive-files`,
    quote:
      "This example denies reads of `.env` files, the `secrets` directory, and a credentials file, and blocks `curl` commands",
    deny: ["Read(./.env)", "Read(./.env.*)", "Read(./secrets/**)", "Read(./config/credentials.json)", "Bash(curl *)"],
    call: bash("curl https://example.com"),
    expected: "deny"
  },
  {
    source: `${SETTINGS_REFERENCE}#exclude-sensitive-files`,
    quote:
      "This example denies reads of `.env` files, the `secrets` directory, and a credentials file, and blocks `curl` commands",
    deny: ["Read(./.env)", "Read(./.env.*)", "Read(./secrets/**)", "Read(./config/credentials.json)", "Bash(curl *)"],
    call: read(".env.local"),
    expected: "deny"
  },
  {
    source: `${SETTINGS_REFERENCE}#exclude-sensitive-files`,
    quote:
      "This example denies reads of `.env` files, the `secrets` directory, and a credentials file, and blocks `curl` commands",
    deny: ["Read(./.env)", "Read(./.env.*)", "Read(./secrets/**)", "Read(./config/credentials.json)", "Bash(curl *)"],
    call: read("config/credentials.json"),
    expected: "deny"
  },
  {
    source: `${SETTINGS}#edit-a-settings-file`,
    quote:
      "\"allow\": [\"Bash(npm run lint)\", \"Bash(npm run test *)\"], \"deny\": [\"Read(./.env)\", \"Read(./.env.*)\"]",
    allow: ["Bash(npm run lint)", "Bash(npm run test *)"],
    deny: ["Read(./.env)", "Read(./.env.*)"],
    call: bash("npm run lint"),
    expected: "allow"
  },

  // ------------------------------------------------------ legacy :* (old docs)
  {
    source: `${OLD_IAM}#tool-specific-permission-rules`,
    quote: "`Bash(npm run test:*)` Matches Bash commands starting with `npm run test`",
    allow: ["Bash(npm run test:*)"],
    call: bash("npm run test"),
    expected: "allow"
  },
  {
    source: `${OLD_IAM}#tool-specific-permission-rules`,
    quote: "`Bash(npm run test:*)` Matches Bash commands starting with `npm run test`",
    allow: ["Bash(npm run test:*)"],
    call: bash("npm run test --watch"),
    expected: "allow"
  },
  {
    source: `${OLD_IAM}#tool-specific-permission-rules`,
    quote:
      "a prefix match rule like `Bash(safe-cmd:*)` won't give it permission to run the command `safe-cmd && other-cmd`",
    allow: ["Bash(safe-cmd:*)"],
    call: bash("safe-cmd && other-cmd"),
    expected: "ask"
  },

  // ------------------------------------------------------- compound commands
  {
    source: `${PERMISSIONS}#compound-commands`,
    quote: "a rule like `Bash(safe-cmd *)` won't give it permission to run the command `safe-cmd && other-cmd`.",
    allow: ["Bash(safe-cmd *)"],
    call: bash("safe-cmd && other-cmd"),
    expected: "ask"
  },
  {
    source: `${PERMISSIONS}#compound-commands`,
    quote: "A rule must match each subcommand independently.",
    allow: ["Bash(safe-cmd *)", "Bash(other-cmd *)"],
    call: bash("safe-cmd && other-cmd"),
    expected: "allow"
  },
  {
    source: `${PERMISSIONS}#compound-commands`,
    quote: "The recognized command separators are `&&`, `||`, `;`, `|`, `|&`, `&`, and newlines.",
    allow: ["Bash(safe-cmd *)"],
    call: bash("safe-cmd || other-cmd"),
    expected: "ask"
  },
  {
    source: `${PERMISSIONS}#compound-commands`,
    quote: "The recognized command separators are `&&`, `||`, `;`, `|`, `|&`, `&`, and newlines.",
    allow: ["Bash(safe-cmd *)"],
    call: bash("safe-cmd; other-cmd"),
    expected: "ask"
  },
  {
    source: `${PERMISSIONS}#compound-commands`,
    quote: "The recognized command separators are `&&`, `||`, `;`, `|`, `|&`, `&`, and newlines.",
    allow: ["Bash(safe-cmd *)"],
    call: bash("safe-cmd | other-cmd"),
    expected: "ask"
  },
  {
    source: `${PERMISSIONS}#compound-commands`,
    quote: "The recognized command separators are `&&`, `||`, `;`, `|`, `|&`, `&`, and newlines.",
    allow: ["Bash(safe-cmd *)"],
    call: bash("safe-cmd |& other-cmd"),
    expected: "ask"
  },
  {
    source: `${PERMISSIONS}#compound-commands`,
    quote: "The recognized command separators are `&&`, `||`, `;`, `|`, `|&`, `&`, and newlines.",
    allow: ["Bash(safe-cmd *)"],
    call: bash("safe-cmd & other-cmd"),
    expected: "ask"
  },
  {
    source: `${PERMISSIONS}#compound-commands`,
    quote: "The recognized command separators are `&&`, `||`, `;`, `|`, `|&`, `&`, and newlines.",
    allow: ["Bash(safe-cmd *)"],
    call: bash("safe-cmd\nother-cmd"),
    expected: "ask"
  },
  {
    source: `${PERMISSIONS}#compound-commands`,
    quote:
      "approving `git status && npm test` saves a rule for `npm test`, so future `npm test` invocations are recognized regardless of what precedes the `&&`",
    allow: ["Bash(npm test)"],
    call: bash("git status && npm test"),
    expected: "allow"
  },
  {
    source: `${PERMISSIONS}#compound-commands`,
    quote:
      "Claude Code saves a separate rule for each subcommand that requires approval ... approving `git status && npm test` saves a rule for `npm test`",
    call: bash("git status && npm test"),
    expected: "ask"
  },
  {
    source: `${PERMISSIONS}#compound-commands`,
    quote: "A rule must match each subcommand independently. (deny on any one subcommand blocks the whole command)",
    allow: ["Bash(npm test *)"],
    deny: ["Bash(rm *)"],
    call: bash("npm test && rm -rf build"),
    expected: "deny"
  },

  // ---------------------------------------------------------------- wrappers
  {
    source: `${PERMISSIONS}#process-wrappers`,
    quote:
      "Claude Code strips a fixed set of wrappers, so a rule like `Bash(npm test *)` also matches `timeout 30 npm test`.",
    allow: ["Bash(npm test *)"],
    call: bash("timeout 30 npm test"),
    expected: "allow"
  },
  {
    source: `${PERMISSIONS}#process-wrappers`,
    quote: "The stripped wrappers are `timeout`, `time`, `nice`, `nohup`, and `stdbuf`",
    allow: ["Bash(npm test *)"],
    call: bash("time npm test"),
    expected: "allow"
  },
  {
    source: `${PERMISSIONS}#process-wrappers`,
    quote: "The stripped wrappers are `timeout`, `time`, `nice`, `nohup`, and `stdbuf`",
    allow: ["Bash(npm test *)"],
    call: bash("nice npm test"),
    expected: "allow"
  },
  {
    source: `${PERMISSIONS}#process-wrappers`,
    quote: "The stripped wrappers are `timeout`, `time`, `nice`, `nohup`, and `stdbuf`",
    allow: ["Bash(npm test *)"],
    call: bash("nohup npm test"),
    expected: "allow"
  },
  {
    source: `${PERMISSIONS}#process-wrappers`,
    quote:
      "The stripped wrappers are `timeout`, `time`, `nice`, `nohup`, and `stdbuf` (stdbuf with its usual -oL option)",
    allow: ["Bash(npm test *)"],
    call: bash("stdbuf -oL npm test"),
    expected: "allow"
  },
  {
    source: `${PERMISSIONS}#process-wrappers`,
    quote:
      "plus the shell builtins `command` and `builtin`, and zsh's `noglob`. Each runs its argument as the actual command.",
    allow: ["Bash(npm test *)"],
    call: bash("command npm test"),
    expected: "allow"
  },
  {
    source: `${PERMISSIONS}#process-wrappers`,
    quote:
      "plus the shell builtins `command` and `builtin`, and zsh's `noglob`. Each runs its argument as the actual command.",
    allow: ["Bash(npm test *)"],
    call: bash("noglob npm test"),
    expected: "allow"
  },
  {
    source: `${PERMISSIONS}#process-wrappers`,
    quote:
      "Two related forms aren't stripped: the query form `command -v`, which looks up a command rather than running one, and zsh's `nocorrect`.",
    allow: ["Bash(npm test *)"],
    call: bash("nocorrect npm test"),
    expected: "ask"
  },
  {
    source: `${PERMISSIONS}#process-wrappers`,
    quote:
      "Claude Code also strips a leading assignment of certain known-safe environment variables, so `Bash(npm test *)` matches `NODE_ENV=test npm test`.",
    allow: ["Bash(npm test *)"],
    call: bash("NODE_ENV=test npm test"),
    expected: "allow"
  },
  {
    source: `${PERMISSIONS}#process-wrappers`,
    quote: "An allow rule won't match past an assignment of any other variable.",
    allow: ["Bash(npm test *)"],
    call: bash("FOO=bar npm test"),
    expected: "ask"
  },
  {
    source: `${PERMISSIONS}#process-wrappers`,
    quote:
      "A deny or ask rule matches past any leading assignment, so `Bash(rm *)` in deny still matches `FOO=bar rm -rf tmp/`.",
    deny: ["Bash(rm *)"],
    call: bash("FOO=bar rm -rf tmp/"),
    expected: "deny"
  },
  {
    source: `${PERMISSIONS}#process-wrappers`,
    quote: "Bare `xargs` is also stripped, so `Bash(grep *)` matches `xargs grep pattern`.",
    allow: ["Bash(grep *)"],
    call: bash("xargs grep pattern"),
    expected: "allow"
  },
  {
    source: `${PERMISSIONS}#process-wrappers`,
    quote:
      "an invocation like `xargs -n1 grep pattern` is matched as an `xargs` command, so rules written for the inner command do not cover it. (rm chosen as inner command)",
    allow: ["Bash(rm *)"],
    call: bash("xargs -n1 rm"),
    expected: "ask"
  },
  {
    source: `${PERMISSIONS}#process-wrappers`,
    quote:
      "a rule like `Bash(devbox run *)` matches whatever comes after `run`, including `devbox run rm -rf .` (an inner command that destroys nothing: the destructive one is asked about in every mode, whatever allows it, since deny, ask and the destruction check read through programs the engine does not know; see the next example)",
    allow: ["Bash(devbox run *)"],
    call: bash("devbox run rm build.log"),
    expected: "allow"
  },
  {
    source: `${PERMISSIONS}#process-wrappers`,
    quote:
      "a rule like `Bash(devbox run *)` matches whatever comes after `run`, including `devbox run rm -rf .` (deliberately stricter here: removing the workspace always reaches a person)",
    allow: ["Bash(devbox run *)"],
    call: bash("devbox run rm -rf ."),
    expected: "ask"
  },
  {
    source: `${PERMISSIONS}#process-wrappers`,
    quote:
      "write a specific rule that includes both the runner and the inner command, such as `Bash(devbox run npm test)`",
    allow: ["Bash(devbox run npm test)"],
    call: bash("devbox run npm test"),
    expected: "allow"
  },
  {
    source: `${PERMISSIONS}#process-wrappers`,
    quote:
      "Development environment runners such as `direnv exec`, `devbox run`, `mise exec`, `npx`, and `docker exec` are not in the list.",
    allow: ["Bash(npm test *)"],
    call: bash("docker exec app npm test"),
    expected: "ask"
  },
  {
    source: `${PERMISSIONS}#process-wrappers`,
    quote:
      "Exec wrappers such as `watch`, `setsid`, `ionice`, and `flock` can't be auto-approved by a prefix rule like `Bash(watch *)`, so in Manual mode they always prompt.",
    allow: ["Bash(watch *)"],
    call: bash("watch npm test"),
    expected: "ask"
  },
  {
    source: `${PERMISSIONS}#process-wrappers`,
    quote: "The same applies to `find` with `-exec` or `-delete`: a `Bash(find *)` rule doesn't cover these forms.",
    allow: ["Bash(find *)"],
    call: bash("find build -type f -delete"),
    expected: "ask"
  },
  {
    source: `${PERMISSIONS}#process-wrappers`,
    quote: "To approve a specific invocation, write an exact-match rule for the full command string.",
    allow: ["Bash(find build -type f -delete)"],
    call: bash("find build -type f -delete"),
    expected: "allow"
  },

  // --------------------------------------------------------- read-only commands
  ...[
    "ls",
    "cat README.md",
    "echo hello",
    "pwd",
    "head -n 5 README.md",
    "tail README.md",
    "grep -r TODO src",
    "find . -name '*.ts'",
    "wc -l README.md",
    "which node",
    "diff a.txt b.txt",
    "stat README.md",
    "du -sh .",
    "cd src"
  ].map((command): Example => ({
    source: `${PERMISSIONS}#read-only-commands`,
    quote:
      "Claude Code recognizes a built-in set of Bash commands as read-only and runs them without a permission prompt in every mode. These include `ls`, `cat`, `echo`, `pwd`, ...",
    call: bash(command),
    expected: "allow"
  })),
  ...(["acceptEdits", "plan", "dontAsk", "bypassPermissions"] as const).map((mode): Example => ({
    source: `${PERMISSIONS}#read-only-commands`,
    quote: "runs them without a permission prompt in every mode",
    mode,
    call: bash("cat README.md"),
    expected: "allow"
  })),
  {
    source: `${PERMISSIONS}#read-only-commands`,
    quote:
      "The set is not configurable; to require a prompt for one of these commands, add an `ask` or `deny` rule for it.",
    ask: ["Bash(cat *)"],
    call: bash("cat README.md"),
    expected: "ask"
  },
  {
    source: `${PERMISSIONS}#read-only-commands`,
    quote:
      "The set is not configurable; to require a prompt for one of these commands, add an `ask` or `deny` rule for it.",
    deny: ["Bash(cat *)"],
    call: bash("cat README.md"),
    expected: "deny"
  },
  {
    source: `${PERMISSIONS}#read-only-commands`,
    quote:
      "Unquoted glob patterns are permitted for commands whose every flag is read-only, so `ls *.ts` and `wc -l src/*.py` run without a prompt.",
    call: bash("ls *.ts"),
    expected: "allow"
  },
  {
    source: `${PERMISSIONS}#read-only-commands`,
    quote:
      "Unquoted glob patterns are permitted for commands whose every flag is read-only, so `ls *.ts` and `wc -l src/*.py` run without a prompt.",
    call: bash("wc -l src/*.py"),
    expected: "allow"
  },
  {
    source: `${PERMISSIONS}#read-only-commands`,
    quote:
      "commands with write-capable or exec-capable flags, such as `find`, `sort`, `sed`, and `git`, prompt when an unquoted glob is present",
    call: bash("find src -name *.ts"),
    expected: "ask"
  },
  {
    source: `${PERMISSIONS}#read-only-commands`,
    quote: "Commands longer than 10,000 characters always prompt because they exceed what the analysis parses.",
    call: bash(`echo ${"a".repeat(10_000)}`),
    expected: "ask"
  },
  {
    source: `${PERMISSIONS}#read-only-commands`,
    quote: "a compound command like `cd packages/api && ls` runs without a prompt when each part qualifies on its own",
    call: bash("cd packages/api && ls"),
    expected: "allow"
  },
  {
    source: `${PERMISSIONS}#read-only-commands`,
    quote:
      "`cd` with `git`: prompts when the `cd` changes into a different directory, since running `git` in a new directory can execute that directory's hooks.",
    call: bash("cd packages/api && git status"),
    expected: "ask"
  },
  {
    source: `${PERMISSIONS}#read-only-commands`,
    quote:
      "A command whose only redirect target is `/dev/null`, such as `cd app; grep -r pattern . 2>/dev/null`, doesn't prompt",
    call: bash("cd app; grep -r pattern . 2>/dev/null"),
    expected: "allow"
  },
  {
    source: `${SECURITY}#permission-based-architecture`,
    quote: "It runs a built-in set of read-only commands such as `ls`, `cat`, and `git status` without asking.",
    call: bash("git status"),
    expected: "allow"
  },
  {
    source: `${SECURITY}#additional-safeguards`,
    quote: "Fail-closed matching: In Manual mode, unmatched commands require approval by default",
    call: bash("npm test"),
    expected: "ask"
  },

  // ------------------------------------------------------------ redirections
  {
    source: `${PERMISSIONS}#redirections`,
    quote:
      "Claude Code checks the target of an output redirection ... as a file write. The check covers your `Edit` allow and deny rules",
    deny: ["Edit(secrets/**)"],
    call: bash("echo token > secrets/key.txt"),
    expected: "deny"
  },
  {
    source: `${PERMISSIONS}#redirections`,
    quote:
      "A rule such as `Bash(git commit *)` allows the command, not the target. (default mode: a file write prompts)",
    allow: ["Bash(git commit *)"],
    call: bash("git commit -m wip > commit.log"),
    expected: "ask"
  },
  {
    source: `${PERMISSIONS}#redirections`,
    quote: "A `/dev/null` target isn't checked.",
    allow: ["Bash(npm test *)"],
    call: bash("npm test 2>/dev/null"),
    expected: "allow"
  },

  // ------------------------------------------------------------ Read and Edit
  {
    source: `${PERMISSIONS}#permission-system`,
    quote: "Read-only | File reads, Grep | No, within the working directory and additional directories",
    call: read("src/index.ts"),
    expected: "allow"
  },
  {
    source: `${SECURITY}#built-in-protections`,
    quote:
      "In Manual mode, Claude Code also asks you before reading paths outside this boundary with the Read, Grep, and Glob tools.",
    call: read("/etc/hosts"),
    expected: "ask"
  },
  {
    source: `${PERMISSIONS}#permission-system`,
    quote: "File modification | Edit/write files | Yes",
    call: edit("src/index.ts"),
    expected: "ask"
  },
  {
    source: `${PERMISSIONS}#permission-system`,
    quote: "File modification | Edit/write files | Yes",
    call: write("src/new.ts"),
    expected: "ask"
  },
  {
    source: `${PERMISSIONS}#read-and-edit`,
    quote:
      "`//path` | Absolute path from filesystem root | `Read(//Users/alice/secrets/**)` | `/Users/alice/secrets/**`",
    deny: ["Read(//Users/alice/secrets/**)"],
    call: read("/Users/alice/secrets/api-key.txt"),
    expected: "deny"
  },
  {
    source: `${PERMISSIONS}#read-and-edit`,
    quote: "`~/path` | Path from home directory | `Read(~/Documents/*.pdf)` | `/Users/alice/Documents/*.pdf`",
    deny: ["Read(~/Documents/*.pdf)"],
    call: read("~/Documents/report.pdf"),
    expected: "deny"
  },
  {
    source: `${PERMISSIONS}#read-and-edit`,
    quote:
      "`~/path` | Path from home directory | `Read(~/Documents/*.pdf)` (allow rule reaching outside the working directory)",
    allow: ["Read(~/Documents/*.pdf)"],
    call: read("~/Documents/report.pdf"),
    expected: "allow"
  },
  {
    source: `${PERMISSIONS}#read-and-edit`,
    quote:
      "In gitignore patterns, `*` matches within a single path segment ... while `**` matches across directories. (outside the boundary, so it asks)",
    deny: ["Read(~/Documents/*.pdf)"],
    call: read("~/Documents/2024/report.pdf"),
    expected: "ask"
  },
  {
    source: `${PERMISSIONS}#read-and-edit`,
    quote:
      "`/path` | Path relative to the settings source | `Edit(/src/**/*.ts)` | `<project root>/src/**/*.ts` in project settings",
    allow: ["Edit(/src/**/*.ts)"],
    call: edit("src/components/button.ts"),
    expected: "allow"
  },
  {
    source: `${PERMISSIONS}#read-and-edit`,
    quote:
      "`/path` | Path relative to the settings source | `Edit(/src/**/*.ts)` | `<project root>/src/**/*.ts` (a .js file does not match)",
    allow: ["Edit(/src/**/*.ts)"],
    call: edit("src/components/button.js"),
    expected: "ask"
  },
  {
    source: `${PERMISSIONS}#read-and-edit`,
    quote: "`path` or `./path` | Path relative to current directory | `Read(*.env)` | `<cwd>/*.env`",
    deny: ["Read(*.env)"],
    call: read("prod.env"),
    expected: "deny"
  },
  {
    source: `${PERMISSIONS}#read-and-edit`,
    quote: "`Edit(/docs/**)`: edits in `<project>/docs/`, not `/docs/` or `<project>/.claude/docs/`",
    allow: ["Edit(/docs/**)"],
    call: edit("docs/guide.md"),
    expected: "allow"
  },
  {
    source: `${PERMISSIONS}#read-and-edit`,
    quote: "`Edit(/docs/**)`: edits in `<project>/docs/`, not `/docs/` or `<project>/.claude/docs/`",
    allow: ["Edit(/docs/**)"],
    call: edit("/docs/guide.md"),
    expected: "ask"
  },
  {
    source: `${PERMISSIONS}#read-and-edit`,
    quote:
      "A pattern like `/Users/alice/file` isn't an absolute path. The single leading slash anchors at the settings source, not the filesystem root.",
    deny: ["Read(/Users/alice/file)"],
    call: read("Users/alice/file"),
    expected: "deny"
  },
  {
    source: `${PERMISSIONS}#read-and-edit`,
    quote: "`Read(~/.zshrc)`: reads your home directory's `.zshrc`",
    deny: ["Read(~/.zshrc)"],
    call: read("~/.zshrc"),
    expected: "deny"
  },
  {
    source: `${PERMISSIONS}#read-and-edit`,
    quote: "`Edit(//tmp/scratch.txt)`: edits the absolute path `/tmp/scratch.txt`",
    allow: ["Edit(//tmp/scratch.txt)"],
    call: edit("/tmp/scratch.txt"),
    expected: "allow"
  },
  {
    source: `${PERMISSIONS}#read-and-edit`,
    quote:
      "`Read(src/**)`: as an allow rule, reads from `<current-directory>/src/` only; as a deny or ask rule, matches a `src` directory at any depth",
    deny: ["Read(src/**)"],
    call: read("vendor/pkg/src/lib.js"),
    expected: "deny"
  },
  {
    source: `${PERMISSIONS}#read-and-edit`,
    quote:
      "Bare filenames follow gitignore semantics and match at any depth, so `Read(.env)` and `Read(**/.env)` are equivalent",
    deny: ["Read(.env)"],
    call: read("packages/api/.env"),
    expected: "deny"
  },
  {
    source: `${PERMISSIONS}#read-and-edit`,
    quote: "`Read(.env)` or `Read(**/.env)` | any `.env` at or under the current directory",
    deny: ["Read(**/.env)"],
    call: read(".env"),
    expected: "deny"
  },
  {
    source: `${PERMISSIONS}#read-and-edit`,
    quote:
      "`Read(.env)` ... Does not block: `.env` in a parent directory or another project (outside the boundary, so it asks)",
    deny: ["Read(.env)"],
    call: read("../.env"),
    expected: "ask"
  },
  {
    source: `${PERMISSIONS}#read-and-edit`,
    quote: "`Read(//**/.env)` | any `.env` anywhere on the filesystem",
    deny: ["Read(//**/.env)"],
    call: read("/srv/other-project/.env"),
    expected: "deny"
  },
  {
    source: `${PERMISSIONS}#read-and-edit`,
    quote:
      "Deny and ask rules: `Read(secrets/**)` matches a directory named `secrets` at any depth under the current directory",
    deny: ["Read(secrets/**)"],
    call: read("packages/api/secrets/token"),
    expected: "deny"
  },
  {
    source: `${PERMISSIONS}#read-and-edit`,
    quote: "`Edit(src/**)` as an allow rule | Matches `src/app.ts`: Yes",
    allow: ["Edit(src/**)"],
    call: edit("src/app.ts"),
    expected: "allow"
  },
  {
    source: `${PERMISSIONS}#read-and-edit`,
    quote: "`Edit(src/**)` as an allow rule | Matches `vendor/pkg/src/lib.js`: No",
    allow: ["Edit(src/**)"],
    call: edit("vendor/pkg/src/lib.js"),
    expected: "ask"
  },
  {
    source: `${PERMISSIONS}#read-and-edit`,
    quote: "`Edit(src/**)` as a deny or ask rule | Matches `vendor/pkg/src/lib.js`: Yes",
    deny: ["Edit(src/**)"],
    call: edit("vendor/pkg/src/lib.js"),
    expected: "deny"
  },
  {
    source: `${PERMISSIONS}#read-and-edit`,
    quote: "`Edit(/src/**)` in any rule type | Matches `vendor/pkg/src/lib.js`: No",
    allow: ["Edit(/src/**)"],
    call: edit("vendor/pkg/src/lib.js"),
    expected: "ask"
  },
  {
    source: `${PERMISSIONS}#read-and-edit`,
    quote: "`Edit(/src/**)` in any rule type | Matches `src/app.ts`: Yes",
    allow: ["Edit(/src/**)"],
    call: edit("src/app.ts"),
    expected: "allow"
  },
  {
    source: `${PERMISSIONS}#read-and-edit`,
    quote: "`Edit(**/src/**)` in any rule type | Matches `vendor/pkg/src/lib.js`: Yes",
    allow: ["Edit(**/src/**)"],
    call: edit("vendor/pkg/src/lib.js"),
    expected: "allow"
  },
  {
    source: `${PERMISSIONS}#read-and-edit`,
    quote: "`Edit(/src/**)` and `Edit(src/components/**)` match only at their anchored location",
    deny: ["Edit(src/components/**)"],
    call: edit("vendor/pkg/src/components/x.ts"),
    expected: "ask"
  },
  {
    source: `${PERMISSIONS}#read-and-edit`,
    quote: "`Edit` rules apply to all built-in tools that edit files.",
    deny: ["Edit(docs/**)"],
    call: write("docs/new-page.md"),
    expected: "deny"
  },
  {
    source: `${PERMISSIONS}#read-and-edit`,
    quote: "Use `Edit(docs/**)` in place of `Write(docs/**)` (an Edit allow rule covers the Write tool)",
    allow: ["Edit(docs/**)"],
    call: write("docs/new-page.md"),
    expected: "allow"
  },
  {
    source: `${PERMISSIONS}#read-and-edit`,
    quote:
      "If you write a path rule for `Write` ... Claude Code accepts the rule but never consults it (so the write prompts as usual)",
    deny: ["Write(docs/**)"],
    call: write("docs/new-page.md"),
    expected: "ask"
  },
  {
    source: `${PERMISSIONS}#read-and-edit`,
    quote:
      "Claude Code doesn't warn about a tool-name rule with no path, such as a deny rule for `Write`; it matches that rule at the tool level everywhere.",
    deny: ["Write"],
    call: write("docs/new-page.md"),
    expected: "deny"
  },
  {
    source: `${PERMISSIONS}#read-and-edit`,
    quote:
      "A `Read` deny rule also blocks the Edit and Write tools on the same path, including creating a new file there.",
    deny: ["Read(./.env)"],
    call: edit(".env"),
    expected: "deny"
  },
  {
    source: `${PERMISSIONS}#read-and-edit`,
    quote:
      "A `Read` deny rule also blocks the Edit and Write tools on the same path, including creating a new file there.",
    deny: ["Read(./.env)"],
    mode: "acceptEdits",
    call: write(".env"),
    expected: "deny"
  },
  {
    source: `${PERMISSIONS}#read-and-edit`,
    quote:
      "To block Claude's file tools from reading a file or directory, add a `Read` deny rule for its path, such as `Read(./.env)` or `Read(./secrets/**)`",
    deny: ["Read(./secrets/**)"],
    call: read("secrets/db/password.txt"),
    expected: "deny"
  },

  // ------------------------------------------------------------------ WebFetch
  {
    source: `${TOOLS}#webfetch-tool-behavior`,
    quote:
      "In the `default` and `acceptEdits` permission modes, WebFetch prompts the first time it reaches a new domain (example.org: not a preapproved docs domain)",
    call: fetch("https://example.org/page"),
    expected: "ask"
  },
  {
    source: `${TOOLS}#webfetch-tool-behavior`,
    quote:
      "In the `default` and `acceptEdits` permission modes, WebFetch prompts the first time it reaches a new domain",
    mode: "acceptEdits",
    call: fetch("https://example.org/page"),
    expected: "ask"
  },
  {
    source: `${TOOLS}#webfetch-tool-behavior`,
    quote: "The `auto` and `bypassPermissions` permission modes skip the prompt entirely.",
    mode: "bypassPermissions",
    call: fetch("https://example.org/page"),
    expected: "allow"
  },
  {
    source: `${TOOLS}#webfetch-tool-behavior`,
    quote:
      "To allow another domain in advance without a prompt, add a permission rule like `WebFetch(domain:example.com)`.",
    allow: ["WebFetch(domain:example.com)"],
    call: fetch("https://example.com/"),
    expected: "allow"
  },
  {
    source: `${PERMISSIONS}#webfetch`,
    quote: "`WebFetch(domain:example.com)` matches requests to `example.com` (and nothing else here)",
    allow: ["WebFetch(domain:example.com)"],
    call: fetch("https://example.org/"),
    expected: "ask"
  },
  {
    source: `${PERMISSIONS}#webfetch`,
    quote:
      "WebFetch rules use a `domain:` prefix and match against the hostname of the requested URL. Matching is case-insensitive",
    allow: ["WebFetch(domain:Example.COM)"],
    call: fetch("https://EXAMPLE.com/page"),
    expected: "allow"
  },
  {
    source: `${PERMISSIONS}#webfetch`,
    quote:
      "strips a trailing `.` from both the rule and the hostname so `example.com.` and `example.com` are treated the same.",
    allow: ["WebFetch(domain:example.com)"],
    call: fetch("https://example.com./page"),
    expected: "allow"
  },
  {
    source: `${PERMISSIONS}#webfetch`,
    quote:
      "strips a trailing `.` from both the rule and the hostname so `example.com.` and `example.com` are treated the same.",
    allow: ["WebFetch(domain:example.com.)"],
    call: fetch("https://example.com/page"),
    expected: "allow"
  },
  {
    source: `${PERMISSIONS}#webfetch`,
    quote:
      "`WebFetch(domain:*.example.com)` matches any subdomain at any depth, such as `api.example.com` or `a.b.example.com`, but not `example.com` itself",
    allow: ["WebFetch(domain:*.example.com)"],
    call: fetch("https://api.example.com/v1"),
    expected: "allow"
  },
  {
    source: `${PERMISSIONS}#webfetch`,
    quote:
      "`WebFetch(domain:*.example.com)` matches any subdomain at any depth, such as `api.example.com` or `a.b.example.com`, but not `example.com` itself",
    allow: ["WebFetch(domain:*.example.com)"],
    call: fetch("https://a.b.example.com/"),
    expected: "allow"
  },
  {
    source: `${PERMISSIONS}#webfetch`,
    quote:
      "`WebFetch(domain:*.example.com)` matches any subdomain at any depth, such as `api.example.com` or `a.b.example.com`, but not `example.com` itself",
    allow: ["WebFetch(domain:*.example.com)"],
    call: fetch("https://example.com/"),
    expected: "ask"
  },
  {
    source: `${PERMISSIONS}#webfetch`,
    quote: "`WebFetch(domain:*)` matches every domain and is equivalent to a bare `WebFetch` rule",
    allow: ["WebFetch(domain:*)"],
    call: fetch("https://example.org/"),
    expected: "allow"
  },
  {
    source: `${PERMISSIONS}#webfetch`,
    quote: "`WebFetch(domain:example.*)` matches `example.org`, where `*` becomes `org`",
    allow: ["WebFetch(domain:example.*)"],
    call: fetch("https://example.org/"),
    expected: "allow"
  },
  {
    source: `${PERMISSIONS}#webfetch`,
    quote: "but not `example.evil.com`, where `*` would have to become `evil.com` and cross a dot.",
    allow: ["WebFetch(domain:example.*)"],
    call: fetch("https://example.evil.com/"),
    expected: "ask"
  },
  {
    source: `${PERMISSIONS}#webfetch`,
    quote: "WebFetch rules use a `domain:` prefix (a deny rule beats a bare allow)",
    allow: ["WebFetch"],
    deny: ["WebFetch(domain:example.com)"],
    call: fetch("https://example.com/"),
    expected: "deny"
  },

  // ----------------------------------------------------------------------- MCP
  {
    source: `${PERMISSIONS}#mcp`,
    quote: "`mcp__puppeteer` matches any tool provided by the `puppeteer` server",
    allow: ["mcp__puppeteer"],
    call: mcp("mcp__puppeteer__puppeteer_navigate"),
    expected: "allow"
  },
  {
    source: `${PERMISSIONS}#mcp`,
    quote: "`mcp__puppeteer__*` uses wildcard syntax and also matches all tools from the `puppeteer` server",
    allow: ["mcp__puppeteer__*"],
    call: mcp("mcp__puppeteer__puppeteer_click"),
    expected: "allow"
  },
  {
    source: `${PERMISSIONS}#mcp`,
    quote:
      "`mcp__puppeteer__puppeteer_navigate` matches the `puppeteer_navigate` tool provided by the `puppeteer` server",
    allow: ["mcp__puppeteer__puppeteer_navigate"],
    call: mcp("mcp__puppeteer__puppeteer_navigate"),
    expected: "allow"
  },
  {
    source: `${PERMISSIONS}#mcp`,
    quote:
      "`mcp__puppeteer__puppeteer_navigate` matches the `puppeteer_navigate` tool provided by the `puppeteer` server (only that tool)",
    allow: ["mcp__puppeteer__puppeteer_navigate"],
    call: mcp("mcp__puppeteer__puppeteer_click"),
    expected: "ask"
  },
  {
    source: `${PERMISSIONS}#mcp`,
    quote: "`mcp__puppeteer` matches any tool provided by the `puppeteer` server (not another server's tools)",
    allow: ["mcp__puppeteer"],
    call: mcp("mcp__github__create_issue"),
    expected: "ask"
  },
  {
    source: `${OLD_IAM}#tool-specific-permission-rules`,
    quote: "Use: `mcp__github` (approves ALL GitHub tools)",
    allow: ["mcp__github"],
    call: mcp("mcp__github__create_issue"),
    expected: "allow"
  },
  {
    source: `${OLD_IAM}#tool-specific-permission-rules`,
    quote: "To approve specific tools only, list each one: `mcp__github__get_issue`, `mcp__github__list_issues`",
    allow: ["mcp__github__get_issue", "mcp__github__list_issues"],
    call: mcp("mcp__github__list_issues"),
    expected: "allow"
  },
  {
    source: `${PERMISSIONS}#tool-name-wildcards`,
    quote: "`mcp__github__get_*` matches its `get_` tools",
    allow: ["mcp__github__get_*"],
    call: mcp("mcp__github__get_issue"),
    expected: "allow"
  },
  {
    source: `${PERMISSIONS}#tool-name-wildcards`,
    quote: "`mcp__github__get_*` matches its `get_` tools",
    allow: ["mcp__github__get_*"],
    call: mcp("mcp__github__create_issue"),
    expected: "ask"
  },
  {
    source: `${PERMISSIONS}#tool-name-wildcards`,
    quote: "`\"mcp__*\"` matches every MCP tool across all servers. ... This configuration denies every MCP tool",
    deny: ["mcp__*"],
    call: mcp("mcp__github__get_issue"),
    expected: "deny"
  },
  {
    source: `${PERMISSIONS}#tool-name-wildcards`,
    quote: "The pattern must match the full tool name: `\"*\"` matches every tool",
    deny: ["*"],
    call: bash("npm test"),
    expected: "deny"
  },
  {
    source: `${PERMISSIONS}#tool-name-wildcards`,
    quote:
      "An unanchored allow glob such as `\"*\"`, `\"B*\"`, or `\"mcp__*\"` is skipped with a warning and doesn't auto-approve anything.",
    allow: ["mcp__*"],
    call: mcp("mcp__github__create_issue"),
    expected: "ask"
  },
  {
    source: `${PERMISSIONS}#tool-name-wildcards`,
    quote:
      "An unanchored allow glob such as `\"*\"`, `\"B*\"`, or `\"mcp__*\"` is skipped with a warning and doesn't auto-approve anything.",
    allow: ["*"],
    call: bash("npm test"),
    expected: "ask"
  },
  {
    source: `${PERMISSIONS}#tool-name-wildcards`,
    quote:
      "An unanchored allow glob such as `\"*\"`, `\"B*\"`, or `\"mcp__*\"` is skipped with a warning and doesn't auto-approve anything.",
    allow: ["B*"],
    call: bash("npm test"),
    expected: "ask"
  },

  // ---------------------------------------------------------------- acceptEdits
  {
    source: `${MODES}#auto-approve-file-edits-with-acceptedits-mode`,
    quote: "`acceptEdits` mode lets Claude create and edit files in your working directory without prompting.",
    mode: "acceptEdits",
    call: edit("src/index.ts"),
    expected: "allow"
  },
  {
    source: `${MODES}#auto-approve-file-edits-with-acceptedits-mode`,
    quote: "`acceptEdits` mode lets Claude create and edit files in your working directory without prompting.",
    mode: "acceptEdits",
    call: write("src/new-file.ts"),
    expected: "allow"
  },
  ...["mkdir build", "touch notes.txt", "rm old.txt", "rmdir tmp", "mv a.txt b.txt", "cp a.txt b.txt"].map(
    (command): Example => ({
      source: `${MODES}#auto-approve-file-edits-with-acceptedits-mode`,
      quote:
        "`acceptEdits` mode auto-approves common filesystem Bash commands: `mkdir`, `touch`, `rm`, `rmdir`, `mv`, `cp`, and `sed`.",
      mode: "acceptEdits",
      call: bash(command),
      expected: "allow"
    })
  ),
  {
    source: `${MODES}#auto-approve-file-edits-with-acceptedits-mode`,
    quote:
      "These commands are also auto-approved when prefixed with safe environment variables such as `LANG=C` or `NO_COLOR=1`",
    mode: "acceptEdits",
    call: bash("LANG=C mkdir build"),
    expected: "allow"
  },
  {
    source: `${MODES}#auto-approve-file-edits-with-acceptedits-mode`,
    quote: "... or process wrappers such as `timeout`, `nice`, or `nohup`.",
    mode: "acceptEdits",
    call: bash("nice touch notes.txt"),
    expected: "allow"
  },
  {
    source: `${MODES}#auto-approve-file-edits-with-acceptedits-mode`,
    quote:
      "auto-approval applies only to paths inside your working directory or `additionalDirectories`. Paths outside that scope ... still prompt.",
    mode: "acceptEdits",
    call: bash("mkdir /opt/cache"),
    expected: "ask"
  },
  {
    source: `${MODES}#auto-approve-file-edits-with-acceptedits-mode`,
    quote:
      "auto-approval applies only to paths inside your working directory or `additionalDirectories`. Paths outside that scope ... still prompt.",
    mode: "acceptEdits",
    call: edit("/etc/hosts"),
    expected: "ask"
  },
  {
    source: `${MODES}#auto-approve-file-edits-with-acceptedits-mode`,
    quote: "... and all other Bash commands except the built-in read-only set still prompt.",
    mode: "acceptEdits",
    call: bash("npm test"),
    expected: "ask"
  },
  {
    source: `${MODES}#available-modes`,
    quote: "`default` | Reads only (file edits prompt, unlike acceptEdits)",
    call: bash("mkdir build"),
    expected: "ask"
  },

  // ------------------------------------------------------------ protected paths
  ...[".git/config", ".claude/settings.json", ".vscode/settings.json", ".idea/workspace.xml", ".husky/pre-commit"]
    .flatMap(
      (path): ReadonlyArray<Example> => [
        {
          source: `${MODES}#protected-paths`,
          quote: "Protected-path writes: `default`, `acceptEdits` | Prompted",
          mode: "acceptEdits",
          call: edit(path),
          expected: "ask"
        },
        {
          source: `${MODES}#protected-paths`,
          quote: "Protected-path writes: `default`, `acceptEdits` | Prompted",
          call: edit(path),
          expected: "ask"
        },
        {
          source: `${MODES}#protected-paths`,
          quote: "Protected-path writes: `dontAsk` | Denied",
          mode: "dontAsk",
          allow: ["Edit"],
          call: edit(path),
          expected: "deny"
        }
      ]
    ),
  ...[".bashrc", ".gitconfig", ".npmrc", ".mcp.json", ".envrc"].map((path): Example => ({
    source: `${MODES}#protected-paths`,
    quote:
      "Protected files: `.gitconfig`, `.gitmodules`, `.bashrc`, ... `.npmrc`, ... `.mcp.json`, `.claude.json` (acceptEdits: Prompted)",
    mode: "acceptEdits",
    call: edit(path),
    expected: "ask"
  })),
  {
    source: `${MODES}#protected-paths`,
    quote: "`.claude`, except for `.claude/worktrees` where Claude stores its own git worktrees",
    mode: "acceptEdits",
    call: edit(".claude/worktrees/feature/README.md"),
    expected: "allow"
  },
  {
    source: `${MODES}#protected-paths`,
    quote:
      "an entry such as `Edit(.claude/**)` in `~/.claude/settings.json` or `.claude/settings.json` does not change the per-mode outcome",
    allow: ["Edit(.claude/**)"],
    call: edit(".claude/settings.json"),
    expected: "ask"
  },
  {
    source: `${MODES}#protected-paths`,
    quote: "`permissions.allow` rules in settings files do not pre-approve protected-path writes.",
    allow: ["Edit"],
    mode: "acceptEdits",
    call: edit(".git/hooks/pre-commit"),
    expected: "ask"
  },
  {
    source: `${MODES}#protected-paths`,
    quote:
      "Protected-path writes: `bypassPermissions` | Allowed (docs: \"Before v2.1.126, protected-path writes still prompted in this mode.\")",
    mode: "bypassPermissions",
    call: edit(".git/config"),
    expected: "allow"
  },
  {
    source: `${MODES}#protected-paths`,
    quote:
      "Protected-path writes: `bypassPermissions` | Allowed (docs: \"Before v2.1.126, protected-path writes still prompted in this mode.\")",
    mode: "bypassPermissions",
    call: edit(".claude/settings.json"),
    expected: "allow"
  },

  // -------------------------------------------------------------- critical paths
  {
    source: `${MODES}#critical-paths`,
    quote:
      "Claude Code never lets a `permissions.allow` rule ... approve an `rm` or `rmdir` command that targets a critical path | `default`: Asks you to approve it",
    allow: ["Bash(rm *)"],
    call: bash("rm -rf ~"),
    expected: "ask"
  },
  {
    source: `${MODES}#critical-paths`,
    quote: "Top-level directories, meaning any direct child of the root, such as `/usr`, `/etc`, or `/data`",
    allow: ["Bash(rm *)"],
    call: bash("rm -rf /usr"),
    expected: "ask"
  },
  {
    source: `${MODES}#critical-paths`,
    quote: "Your working directory and its parents",
    allow: ["Bash(rm *)"],
    mode: "acceptEdits",
    call: bash("rm -rf ."),
    expected: "ask"
  },
  {
    source: `${MODES}#critical-paths`,
    quote:
      "a glob or trailing slash directly under a shell variable, such as `rm -rf \"$DIR\"/*`, as a critical-path removal",
    allow: ["Bash(rm *)"],
    call: bash("rm -rf \"$DIR\"/*"),
    expected: "ask"
  },
  {
    source: `${MODES}#critical-paths`,
    quote: "`bypassPermissions` | Asks you to approve it",
    mode: "bypassPermissions",
    call: bash("rm -rf /"),
    expected: "ask"
  },
  {
    source: `${MODES}#critical-paths`,
    quote: "`dontAsk` | Denies it",
    allow: ["Bash(rm *)"],
    mode: "dontAsk",
    call: bash("rm -rf /"),
    expected: "deny"
  },
  {
    source: `${MODES}#critical-paths`,
    quote: "A matching deny rule still blocks the command outright.",
    deny: ["Bash(rm *)"],
    mode: "bypassPermissions",
    call: bash("rm -rf ~"),
    expected: "deny"
  },
  {
    source: `${MODES}#critical-paths`,
    quote:
      "Claude Code finds a critical-path removal whether it sits inside the substitution, as in `echo \"$(rm -rf ~)\"`",
    allow: ["Bash(echo *)", "Bash(rm *)"],
    call: bash("echo \"$(rm -rf ~)\""),
    expected: "ask"
  },

  // ------------------------------------------------------------------- plan
  {
    source: `${MODES}#analyze-before-you-edit-with-plan-mode`,
    quote: "Claude reads files, runs shell commands to explore, and writes a plan, but does not edit your source.",
    mode: "plan",
    call: read("src/index.ts"),
    expected: "allow"
  },
  {
    source: `${MODES}#analyze-before-you-edit-with-plan-mode`,
    quote: "Otherwise [no auto mode], commands outside the built-in read-only set prompt for approval",
    mode: "plan",
    call: bash("npm test"),
    expected: "ask"
  },
  {
    source: `${MODES}#analyze-before-you-edit-with-plan-mode`,
    quote:
      "Claude reads files, runs shell commands to explore ... (read-only commands run without a prompt in every mode)",
    mode: "plan",
    call: bash("git log --oneline"),
    expected: "allow"
  },

  // ---------------------------------------------------------------- dontAsk
  {
    source: `${MODES}#allow-only-pre-approved-tools-with-dontask-mode`,
    quote: "Claude Code auto-denies every tool call that would otherwise prompt you.",
    mode: "dontAsk",
    call: bash("npm test"),
    expected: "deny"
  },
  {
    source: `${MODES}#allow-only-pre-approved-tools-with-dontask-mode`,
    quote:
      "Claude runs only actions matching your `permissions.allow` rules, read-only Bash commands, and calls approved by a PreToolUse hook.",
    mode: "dontAsk",
    allow: ["Bash(npm test)"],
    call: bash("npm test"),
    expected: "allow"
  },
  {
    source: `${MODES}#allow-only-pre-approved-tools-with-dontask-mode`,
    quote:
      "Claude runs only actions matching your `permissions.allow` rules, read-only Bash commands, and calls approved by a PreToolUse hook.",
    mode: "dontAsk",
    call: bash("ls -la"),
    expected: "allow"
  },
  {
    source: `${MODES}#allow-only-pre-approved-tools-with-dontask-mode`,
    quote: "Claude Code denies calls matching your explicit `ask` rules rather than prompting.",
    mode: "dontAsk",
    allow: ["Bash(git *)"],
    ask: ["Bash(git push *)"],
    call: bash("git push origin main"),
    expected: "deny"
  },
  {
    source: `${MODES}#allow-only-pre-approved-tools-with-dontask-mode`,
    quote: "Claude Code auto-denies every tool call that would otherwise prompt you.",
    mode: "dontAsk",
    call: edit("src/index.ts"),
    expected: "deny"
  },
  {
    source: `${MODES}#allow-only-pre-approved-tools-with-dontask-mode`,
    quote: "Claude Code auto-denies every tool call that would otherwise prompt you.",
    mode: "dontAsk",
    call: fetch("https://example.org/"),
    expected: "deny"
  },
  {
    source: `${MODES}#allow-only-pre-approved-tools-with-dontask-mode`,
    quote: "Claude Code auto-denies every tool call that would otherwise prompt you.",
    mode: "dontAsk",
    call: mcp("mcp__github__create_issue"),
    expected: "deny"
  },
  {
    source: `${MODES}#allow-only-pre-approved-tools-with-dontask-mode`,
    quote: "Claude runs only actions matching your `permissions.allow` rules",
    mode: "dontAsk",
    allow: ["WebFetch(domain:example.com)"],
    call: fetch("https://example.com/"),
    expected: "allow"
  },
  {
    source: `${MODES}#allow-only-pre-approved-tools-with-dontask-mode`,
    quote:
      "auto-denies every tool call that would otherwise prompt you (reads inside the working directory never prompt)",
    mode: "dontAsk",
    call: read("src/index.ts"),
    expected: "allow"
  },
  {
    source: `${MODES}#common-setups`,
    quote: "`claude -p \"run the test suite\" --permission-mode dontAsk --allowedTools \"Bash(npm test)\" \"Read\"`",
    mode: "dontAsk",
    allow: ["Bash(npm test)", "Read"],
    call: bash("npm run build"),
    expected: "deny"
  },

  // ------------------------------------------------------- bypassPermissions
  {
    source: `${MODES}#skip-all-checks-with-bypasspermissions-mode`,
    quote: "`bypassPermissions` mode disables permission prompts and safety checks so tool calls execute immediately",
    mode: "bypassPermissions",
    call: bash("npm test"),
    expected: "allow"
  },
  {
    source: `${MODES}#skip-all-checks-with-bypasspermissions-mode`,
    quote: "`bypassPermissions` mode disables permission prompts and safety checks so tool calls execute immediately",
    mode: "bypassPermissions",
    call: edit("src/index.ts"),
    expected: "allow"
  },
  {
    source: `${MODES}#skip-all-checks-with-bypasspermissions-mode`,
    quote: "`bypassPermissions` mode disables permission prompts and safety checks so tool calls execute immediately",
    mode: "bypassPermissions",
    call: mcp("mcp__github__create_issue"),
    expected: "allow"
  },
  {
    source: `${MODES}#actions-no-mode-auto-approves`,
    quote:
      "Claude Code doesn't auto-approve the following in any mode, including `bypassPermissions`: Tools matched by an explicit ask rule",
    mode: "bypassPermissions",
    ask: ["Bash(git push *)"],
    call: bash("git push origin main"),
    expected: "ask"
  },
  {
    source: `${MODES}#available-modes`,
    quote: "Deny rules block in every mode, including `bypassPermissions`.",
    mode: "bypassPermissions",
    deny: ["Bash(rm *)"],
    call: bash("rm -rf build"),
    expected: "deny"
  },
  {
    source: `${MODES}#available-modes`,
    quote: "Deny rules block in every mode, including `bypassPermissions`.",
    mode: "bypassPermissions",
    deny: ["Read(./.env)"],
    call: read(".env"),
    expected: "deny"
  }
]

/**
 * Examples that add PreToolUse hooks. Each entry in `hooks` is one hook's
 * `permissionDecision`. Kept apart from `examples` because `Example` has no
 * place for hooks.
 */
export const hookExamples: ReadonlyArray<HookExample> = [
  {
    source: `${PERMISSIONS}#extend-permissions-with-hooks`,
    quote:
      "Claude Code evaluates deny and ask rules regardless of what a PreToolUse hook returns: a matching deny rule blocks the call",
    deny: ["Bash(rm *)"],
    hooks: ["allow"],
    call: bash("rm -rf build"),
    expected: "deny"
  },
  {
    source: `${PERMISSIONS}#extend-permissions-with-hooks`,
    quote: "a matching ask rule still prompts even when the hook returned `\"allow\"` or `\"ask\"`",
    ask: ["Bash(git push *)"],
    hooks: ["allow"],
    call: bash("git push origin main"),
    expected: "ask"
  },
  {
    source: `${PERMISSIONS}#extend-permissions-with-hooks`,
    quote: "The hook output can deny the tool call, force a prompt, or skip the prompt to let the call proceed.",
    hooks: ["allow"],
    call: bash("npm test"),
    expected: "allow"
  },
  {
    source: `${PERMISSIONS}#extend-permissions-with-hooks`,
    quote: "The hook output can deny the tool call, force a prompt, or skip the prompt to let the call proceed.",
    allow: ["Bash(npm test *)"],
    hooks: ["ask"],
    call: bash("npm test"),
    expected: "ask"
  },
  {
    source: `${PERMISSIONS}#extend-permissions-with-hooks`,
    quote: "A blocking hook also takes precedence over allow rules.",
    allow: ["Bash"],
    hooks: ["deny"],
    call: bash("npm test"),
    expected: "deny"
  },
  {
    source: `${HOOKS}#pretooluse-decision-control`,
    quote:
      "When multiple PreToolUse hooks return different decisions, precedence is `deny` > `defer` > `ask` > `allow`.",
    hooks: ["allow", "deny", "ask"],
    call: bash("npm test"),
    expected: "deny"
  },
  {
    source: `${HOOKS}#pretooluse-decision-control`,
    quote:
      "When multiple PreToolUse hooks return different decisions, precedence is `deny` > `defer` > `ask` > `allow`.",
    hooks: ["allow", "ask"],
    call: bash("npm test"),
    expected: "ask"
  },
  {
    source: `${MODES}#allow-only-pre-approved-tools-with-dontask-mode`,
    quote:
      "Claude runs only actions matching your `permissions.allow` rules, read-only Bash commands, and calls approved by a PreToolUse hook.",
    mode: "dontAsk",
    hooks: ["allow"],
    call: bash("npm test"),
    expected: "allow"
  },
  {
    source: `${MODES}#critical-paths`,
    quote:
      "Claude Code never lets a `permissions.allow` rule or a `PreToolUse` hook that returns `\"allow\"` approve an `rm` or `rmdir` command that targets a critical path",
    hooks: ["allow"],
    call: bash("rm -rf ~"),
    expected: "ask"
  },
  {
    source: `${HOOKS}#pretooluse-decision-control`,
    quote:
      "`\"allow\"` skips the permission prompt ... Deny and ask rules are still evaluated regardless of what the hook returns",
    deny: ["Edit(secrets/**)"],
    hooks: ["allow"],
    mode: "acceptEdits",
    call: edit("secrets/key.txt"),
    expected: "deny"
  }
]

/** Rule spellings the docs call ignored, unsupported, or never consulted. */
export const invalidRules: ReadonlyArray<{ readonly source: string; readonly quote: string; readonly rule: string }> = [
  {
    source: `${PERMISSIONS}#match-by-input-parameter`,
    quote:
      "A rule like `Bash(command:rm *)` would be bypassable by a compound command, so Claude Code ignores it and emits a startup warning.",
    rule: "Bash(command:rm *)"
  },
  {
    source: `${PERMISSIONS}#tool-name-wildcards`,
    quote:
      "An unanchored allow glob such as `\"*\"`, `\"B*\"`, or `\"mcp__*\"` is skipped with a warning and doesn't auto-approve anything. (allow rules only)",
    rule: "*"
  },
  {
    source: `${PERMISSIONS}#tool-name-wildcards`,
    quote:
      "An unanchored allow glob such as `\"*\"`, `\"B*\"`, or `\"mcp__*\"` is skipped with a warning and doesn't auto-approve anything. (allow rules only)",
    rule: "B*"
  },
  {
    source: `${PERMISSIONS}#tool-name-wildcards`,
    quote:
      "An unanchored allow glob such as `\"*\"`, `\"B*\"`, or `\"mcp__*\"` is skipped with a warning and doesn't auto-approve anything. (allow rules only)",
    rule: "mcp__*"
  },
  ...["Write(docs/**)", "NotebookEdit(docs/**)", "MultiEdit(docs/**)", "Glob(docs/**)"].map((rule) => ({
    source: `${PERMISSIONS}#read-and-edit`,
    quote:
      "If you write a path rule for `Write`, `NotebookEdit`, `Glob`, or the legacy `MultiEdit` tool instead, Claude Code accepts the rule but never consults it, and warns at startup",
    rule
  }))
]

/** Every rule spelling that appears in the docs read, with where it appears. */
export const validRules: ReadonlyArray<{ readonly source: string; readonly rule: string }> = [
  ...[
    "Bash",
    "Bash(*)",
    "WebFetch",
    "Read",
    "Edit",
    "Write",
    "Bash(npm run build)",
    "Read(./.env)",
    "WebFetch(domain:example.com)",
    "Agent(model:opus)",
    "Agent(isolation:worktree)",
    "Bash(run_in_background:true)",
    "Agent(isolation:*)",
    "Agent(model:*)",
    "Bash(aws *)",
    "Bash(aws s3 ls)",
    "Bash(rm *)",
    "Bash(npm run *)",
    "Bash(git commit *)",
    "Bash(git * main)",
    "Bash(* --version)",
    "Bash(* --help *)",
    "Bash(git push *)",
    "Bash(ls:*)",
    "Bash(ls *)",
    "Bash(ls*)",
    "Bash(git:* push)",
    "mcp__*",
    "mcp__puppeteer__*",
    "mcp__github__get_*",
    "Bash(npm run test *)",
    "Bash(npm *)",
    "Bash(* install)",
    "Bash(git *)",
    "Bash(safe-cmd *)",
    "Bash(npm test *)",
    "Bash(grep *)",
    "Bash(devbox run *)",
    "Bash(devbox run npm test)",
    "Bash(watch *)",
    "Bash(find *)",
    "Bash(curl http://github.com/ *)",
    "WebFetch(domain:github.com)",
    "PowerShell",
    "PowerShell(*)",
    "PowerShell(Get-ChildItem *)",
    "PowerShell(git commit *)",
    "PowerShell(Remove-Item *)",
    "Read(./secrets/**)",
    "Edit(docs/**)",
    "Read(docs/**)",
    "Read(//Users/alice/secrets/**)",
    "Read(~/Documents/*.pdf)",
    "Edit(/src/**/*.ts)",
    "Read(*.env)",
    "Edit(/src/**)",
    "Read(/secrets/**)",
    "Edit(/docs/**)",
    "Read(~/.zshrc)",
    "Edit(//tmp/scratch.txt)",
    "Read(src/**)",
    "Read(.env)",
    "Read(**/.env)",
    "Read(//**/.env)",
    "Edit(src/**)",
    "Edit(**/src/**)",
    "Read(secrets/**)",
    "Edit(src/components/**)",
    "Read(./project/**)",
    "Read(~/.ssh/**)",
    "WebFetch(domain:*.example.com)",
    "WebFetch(domain:*)",
    "WebFetch(domain:example.*)",
    "mcp__puppeteer",
    "mcp__puppeteer__puppeteer_navigate",
    "Agent(Explore)",
    "Agent(Plan)",
    "Agent(my-custom-agent)",
    "Cd",
    "Cd(~/code/*)",
    "Cd(~/code/**)",
    "Cd(**/node_modules)"
  ].map((rule) => ({ source: PERMISSIONS, rule })),
  ...["Edit(.claude/**)", "Bash(npm test)", "Read", "Bash(python*)", "Agent"].map((rule) => ({ source: MODES, rule })),
  ...["Bash(npm run lint)", "Bash(npm run test *)", "Read(./.env)", "Read(./.env.*)"].map((rule) => ({
    source: SETTINGS,
    rule
  })),
  ...[
    "Read(./.env)",
    "Read(./.env.*)",
    "Read(./secrets/**)",
    "Read(./config/credentials.json)",
    "Bash(curl *)",
    "Bash(git diff *)",
    "Bash(python *)",
    "Read(//etc/secrets/**)"
  ].map((rule) => ({ source: SETTINGS_REFERENCE, rule })),
  ...["Bash(curl *)"].map((rule) => ({ source: SECURITY, rule })),
  ...["Edit(notebooks/**)", "Read(~/secrets/**)", "WebSearch"].map((rule) => ({ source: TOOLS, rule })),
  ...["Bash(git *)", "Edit(*.ts)", "Bash(rm *)", "Bash(git push *)", "mcp__memory", "mcp__memory__create_entities"].map(
    (rule) => ({ source: HOOKS, rule })
  ),
  ...[
    "Bash(npm run build)",
    "Bash(npm run test:*)",
    "Bash(curl http://site.com/:*)",
    "Bash(safe-cmd:*)",
    "Bash(curl http://github.com/:*)",
    "WebFetch(domain:github.com)",
    "mcp__github",
    "mcp__github__get_issue",
    "mcp__github__list_issues"
  ].map((rule) => ({ source: OLD_IAM, rule }))
]
