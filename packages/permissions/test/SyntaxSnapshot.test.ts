/**
 * The snapshot of a parse (`SyntaxSnapshot`) reads as the grammar's own
 * nodes do, node by node, on every line it is made for: each permission
 * decision is made on it. Lines come from the differential test's grammar
 * of shell constructs, its known evasions, and every string literal of this
 * package's tests (`SNAPSHOT_LINES` sets how many generated lines; 4,000 by
 * default).
 */
import { assert, describe, it } from "@effect/vitest"
import * as Fs from "node:fs"
import { createRequire } from "node:module"
import * as Path from "node:path"
import { fileURLToPath } from "node:url"
import { Language, type Node, Parser, type Tree } from "web-tree-sitter"
import type * as BashSyntax from "../src/BashSyntax.js"
import * as SyntaxSnapshot from "../src/SyntaxSnapshot.js"
import * as ShellGrammar from "./differential/ShellGrammar.js"

const here = Path.dirname(fileURLToPath(import.meta.url))

await Parser.init()
const language = await Language.load(
  createRequire(import.meta.url).resolve("@tool-runtime/permissions/grammar/tree-sitter-bash.wasm")
)
const parser = new Parser()
parser.setLanguage(language)
const fieldNames = language.fields.filter((name): name is string => name !== null)

/** The double-quoted string literals of this package's tests: lines someone thought worth a test. */
const testLiterals = (): ReadonlyArray<string> => {
  const out = new Set<string>()
  for (const file of Fs.readdirSync(here)) {
    if (!file.endsWith(".ts")) continue
    for (const [literal] of Fs.readFileSync(Path.join(here, file), "utf8").matchAll(/"(?:[^"\\\n]|\\.)*"/g)) {
      try {
        out.add(JSON.parse(literal) as string)
      } catch {
        // Not a JSON string (a TypeScript escape JSON lacks): skipped.
      }
    }
  }
  return [...out]
}

const lines: ReadonlyArray<string> = [
  ...new Set([
    "npm test",
    "git status && npm run build -- --filter=web",
    "ls -la src | grep ts",
    "cat package.json",
    "NODE_ENV=test npm test 2>/dev/null",
    "find . -name '*.ts' -not -path './node_modules/*'",
    ...ShellGrammar.knownEvasions,
    ...ShellGrammar.sample(Number(process.env.SNAPSHOT_LINES ?? 4_000), 20_251_207),
    ...testLiterals()
  ])
]

/** Whether a tree has a node of no width, or more than 200 levels: the snapshot leaves such a tree to its nodes. */
const leftToNodes = (root: Node): boolean => {
  const stack: Array<readonly [Node, number]> = [[root, 0]]
  while (stack.length > 0) {
    const [node, depth] = stack.pop()!
    if (node.startIndex === node.endIndex || depth > 200) return true
    for (const child of node.children) stack.push([child, depth + 1])
  }
  return false
}

/** The first difference between the snapshot and the tree, by path from the root; `undefined` when none. */
const difference = (real: Node, copy: BashSyntax.SyntaxNode): string | undefined => {
  // Each real node's id, as the snapshot node at its place: `parent`, `namedChildren`, fields must land there.
  const placed = new Map<number, BashSyntax.SyntaxNode>()
  const pairs: Array<readonly [Node, BashSyntax.SyntaxNode, string]> = [[real, copy, "root"]]
  for (let i = 0; i < pairs.length; i++) {
    const [r, c, path] = pairs[i]!
    placed.set(r.id, c)
    const rc = r.children
    for (let j = 0; j < rc.length; j++) pairs.push([rc[j]!, c.children[j]!, `${path}/${j}:${rc[j]!.type}`])
  }
  for (const [r, c, path] of pairs) {
    const at = (what: string, a: unknown, b: unknown) => `${path}: ${what} ${JSON.stringify(a)} vs ${JSON.stringify(b)}`
    if (c === undefined) return `${path}: missing in the snapshot`
    for (const key of ["type", "isNamed", "hasError", "startIndex", "endIndex", "text", "childCount"] as const) {
      if (r[key] !== c[key]) return at(key, r[key], c[key])
    }
    if (r.children.length !== c.children.length) return at("children", r.children.length, c.children.length)
    const named = r.namedChildren.map((n) => placed.get(n.id))
    if (named.length !== c.namedChildren.length || named.some((n, k) => n !== c.namedChildren[k])) {
      return at("namedChildren", r.namedChildren.map((n) => n.type), c.namedChildren.map((n) => n.type))
    }
    const first = r.firstChild === null ? null : placed.get(r.firstChild.id)
    if (first !== c.firstChild) return at("firstChild", r.firstChild?.type, c.firstChild?.type)
    const parent = r.parent === null ? null : placed.get(r.parent.id)
    if (parent !== c.parent) return at("parent", r.parent?.type, c.parent?.type)
    for (const field of [...fieldNames, "no-such-field"]) {
      const rf = r.childForFieldName(field)
      const cf = c.childForFieldName(field)
      if ((rf === null ? null : placed.get(rf.id)) !== cf) return at(`field ${field}`, rf?.type, cf?.type)
    }
  }
  return undefined
}

const parse = (line: string): Tree => parser.parse(line)!

describe("SyntaxSnapshot", () => {
  it("reads as the grammar's nodes on every node of every line it is made for", () => {
    let copied = 0
    const failures: Array<string> = []
    for (const line of lines) {
      const tree = parse(line)
      try {
        const copy = SyntaxSnapshot.snapshot(tree, line)
        if (copy === undefined) {
          // Left to the grammar's nodes only for the reasons the module gives.
          if (!tree.rootNode.hasError && !leftToNodes(tree.rootNode)) {
            failures.push(`not copied: ${JSON.stringify(line)}`)
          }
          continue
        }
        copied++
        const found = difference(tree.rootNode, copy)
        if (found !== undefined) failures.push(`${JSON.stringify(line)}: ${found}`)
      } finally {
        tree.delete()
      }
    }
    assert.deepStrictEqual(failures.slice(0, 10), [])
    // Most lines are copied: a snapshot that gave up everywhere would prove nothing.
    assert.isAbove(copied, lines.length / 2)
  })

  it("copies typical lines, and leaves a tree with a parse error, an empty node or 200 levels to the grammar", () => {
    for (const line of ["npm test", "git status && npm run build -- --filter=web", "cat <<'EOF'\nhi\nEOF"]) {
      const tree = parse(line)
      const root = SyntaxSnapshot.rootOf(tree, line)
      assert.isUndefined((root as { tree?: unknown }).tree, line)
      tree.delete()
    }
    for (const line of ["echo $(", "if then fi", "", `${"(".repeat(300)}ls${")".repeat(300)}`]) {
      const tree = parse(line)
      assert.isUndefined(SyntaxSnapshot.snapshot(tree, line), line)
      assert.strictEqual(SyntaxSnapshot.rootOf(tree, line).type, tree.rootNode.type)
      tree.delete()
    }
  })

  it("keeps its child lists read-only", () => {
    const line = "a && b | c; d"
    const tree = parse(line)
    const copy = SyntaxSnapshot.snapshot(tree, line)!
    tree.delete()
    assert.throws(() => (copy.children as Array<BashSyntax.SyntaxNode>).reverse())
    assert.throws(() => (copy.children[0]!.children as Array<BashSyntax.SyntaxNode>).sort())
    // …and reads the same after its tree is gone: nothing of the WebAssembly heap stays in it.
    assert.strictEqual(copy.children[0]!.children[2]!.text, "b | c")
  })
})
