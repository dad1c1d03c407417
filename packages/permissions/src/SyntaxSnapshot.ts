/**
 * SyntaxSnapshot: a parse copied out of the WebAssembly heap in one walk of
 * a tree cursor, as plain objects with the `SyntaxNode` shape every walker
 * of the tree reads.
 *
 * Why: each property of a web-tree-sitter `Node` (`type`, `endIndex`,
 * `parent`, `children`…) is a call into WebAssembly, and `children` makes a
 * new object per child each time a new `Node` is asked for it. The analysis
 * of one line walks the tree several times (its readings, the simple
 * form, the line breaks inside commands, the words of each command) and
 * reads most properties more than once: the calls, not the parse, were
 * most of a typical line's cost. A cursor visits each node once with a
 * handful of calls, and what the walkers then read is JavaScript.
 *
 * The copy must read exactly as the `Node`s do, since every permission
 * decision is made on it. It is only made where that is plain to see:
 *
 * - **no parse error**: `hasError` grows towards the root (a node's error
 *   cost is at least any descendant's), so a root without one means that no
 *   node has one, and `false` is every node's answer. A tree with an error
 *   (where the grammar inserts missing, zero-width nodes) keeps its `Node`s.
 * - **no zero-width node**: the grammar's `parent` is found by walking down
 *   from the root by byte ranges, which may pick another node for an empty
 *   one (none did, in the tests: the rule is caution); with none, it is the
 *   node whose children hold it, as here.
 * - **at most 200 levels deep**: the readings stop following a tree there,
 *   and copying a deeper one whole would only add work.
 *
 * Otherwise `rootOf` returns the tree's own root, and the walkers read the
 * `Node`s as before. The tests compare both on every node of generated lines
 * (`SyntaxSnapshot.test.ts`).
 *
 * @since 0.4.0
 */
import type * as BashSyntax from "./BashSyntax.js"

/**
 * The part of web-tree-sitter's `TreeCursor` the walk uses.
 *
 * @since 0.4.0
 * @category models
 */
export interface Cursor {
  readonly nodeTypeId: number
  readonly nodeIsNamed: boolean
  readonly startIndex: number
  readonly endIndex: number
  readonly currentFieldId: number
  readonly gotoFirstChild: () => boolean
  readonly gotoNextSibling: () => boolean
  readonly gotoParent: () => boolean
  readonly delete: () => void
}

/**
 * A parse the walk can read: its cursor, and the grammar's names for node
 * types and fields (web-tree-sitter's `Tree` and `Language`).
 *
 * @since 0.4.0
 * @category models
 */
export interface WalkableTree extends BashSyntax.SyntaxTree {
  readonly walk: () => Cursor
  readonly language: {
    readonly types: ReadonlyArray<string>
    readonly fields: ReadonlyArray<string | null>
  }
}

/**
 * The loaded bash grammar, as the analysis uses it: its parses are walked
 * with a cursor.
 *
 * @since 0.4.0
 * @category models
 */
export interface Grammar {
  readonly parse: (source: string) => WalkableTree | null
}

/** Past this depth a tree keeps its own nodes (see the walk). */
const maxDepth = 200

// Node ids are only compared with each other (`a.id === b.id`); counting up
// keeps them apart across every snapshot, as the grammar's are within a tree.
let nextId = 1

// Whether a type is named depends on its symbol alone (an alias has a symbol
// of its own): asked of the cursor once per type, per grammar.
const namedByGrammar = new WeakMap<ReadonlyArray<string>, Array<boolean | undefined>>()

class SnapshotNode implements BashSyntax.SyntaxNode {
  readonly id = nextId++
  readonly children: Array<SnapshotNode> = []
  private textCache: string | undefined = undefined
  private namedCache: ReadonlyArray<SnapshotNode> | undefined = undefined

  constructor(
    readonly type: string,
    readonly isNamed: boolean,
    readonly startIndex: number,
    readonly endIndex: number,
    /** The grammar's field id of this node within its parent; 0 for none. */
    readonly fieldId: number,
    readonly parent: SnapshotNode | null,
    private readonly source: string,
    private readonly fields: ReadonlyArray<string | null>
  ) {}

  get hasError(): boolean {
    // Only trees without a parse error are copied (see the module header).
    return false
  }

  get text(): string {
    // web-tree-sitter reads a node's text from the parsed string by its offsets (UTF-16 units).
    return this.textCache ??= this.source.slice(this.startIndex, this.endIndex)
  }

  get childCount(): number {
    return this.children.length
  }

  get namedChildren(): ReadonlyArray<SnapshotNode> {
    return this.namedCache ??= Object.freeze(this.children.filter((child) => child.isNamed))
  }

  get firstChild(): SnapshotNode | null {
    return this.children[0] ?? null
  }

  childForFieldName(name: string): SnapshotNode | null {
    // As web-tree-sitter: an unknown name is no field; the first child holding the field otherwise.
    const fieldId = this.fields.indexOf(name)
    if (fieldId <= 0) return null
    for (const child of this.children) if (child.fieldId === fieldId) return child
    return null
  }
}

/**
 * The root to walk: a snapshot of the tree when it has no parse error, no
 * zero-width node and at most 200 levels, the tree's own root otherwise. `source` must be the
 * string the tree was parsed from. The tree must still be deleted by its
 * owner; the snapshot holds nothing of it.
 *
 * @since 0.4.0
 * @category constructors
 */
export const rootOf = (tree: WalkableTree, source: string): BashSyntax.SyntaxNode =>
  snapshot(tree, source) ?? tree.rootNode

/**
 * The snapshot alone, or `undefined` where the tree's own nodes must be read
 * (a parse error, a zero-width node, more than 200 levels). Exported for the tests, which compare
 * it with the tree node by node.
 *
 * @since 0.4.0
 * @category constructors
 */
export const snapshot = (tree: WalkableTree, source: string): BashSyntax.SyntaxNode | undefined => {
  if (tree.rootNode.hasError) return undefined
  const { fields, types } = tree.language
  let named = namedByGrammar.get(types)
  if (named === undefined) namedByGrammar.set(types, named = [])
  const cursor = tree.walk()
  try {
    const visit = (parent: SnapshotNode | null): SnapshotNode | undefined => {
      const typeId = cursor.nodeTypeId
      const startIndex = cursor.startIndex
      const endIndex = cursor.endIndex
      if (startIndex === endIndex) return undefined
      const isNamed = named[typeId] ??= cursor.nodeIsNamed
      const node = new SnapshotNode(
        types[typeId] || "ERROR",
        isNamed,
        startIndex,
        endIndex,
        parent === null ? 0 : cursor.currentFieldId,
        parent,
        source,
        fields
      )
      parent?.children.push(node)
      return node
    }
    const root = visit(null)
    if (root === undefined) return undefined
    // Depth first, in the grammar's order, without recursion.
    let at = root
    let depth = 0
    for (;;) {
      if (cursor.gotoFirstChild()) {
        // A tree nested deeper than its readings follow (`CommandReadings` reads what lies past 200
        // levels as text) is left to its own nodes: copying it whole would cost more than the walks
        // that stop there, where a line is parsed again as bash may read it.
        if (++depth > maxDepth) return undefined
        const child = visit(at)
        if (child === undefined) return undefined
        at = child
        continue
      }
      for (;;) {
        // Every child list read-only at run time too: a walker that sorted one in place would change the next walk.
        Object.freeze(at.children)
        if (at === root) return root
        if (cursor.gotoNextSibling()) {
          const sibling = visit(at.parent)
          if (sibling === undefined) return undefined
          at = sibling
          break
        }
        cursor.gotoParent()
        depth--
        at = at.parent!
      }
    }
  } finally {
    cursor.delete()
  }
}
