/**
 * BashSyntax: the shapes the engine reads of the bash grammar's parse, and
 * the callback that analyses a script within a line. Apart so every walker
 * of the tree can name them without importing the walk that uses them, and
 * without this package's declarations depending on web-tree-sitter's.
 *
 * @since 0.4.0
 */
import type * as LineAnalysis from "./LineAnalysis.js"

/**
 * What the engine reads of a node of the bash grammar's tree: the part of
 * web-tree-sitter's `Node` it uses, written out so that this package's
 * declarations do not depend on web-tree-sitter's (whose own need the
 * Emscripten types).
 *
 * @since 0.3.0
 * @category models
 */
export interface SyntaxNode {
  readonly id: number
  readonly type: string
  readonly text: string
  readonly isNamed: boolean
  readonly hasError: boolean
  readonly startIndex: number
  readonly endIndex: number
  readonly childCount: number
  readonly children: ReadonlyArray<SyntaxNode>
  readonly namedChildren: ReadonlyArray<SyntaxNode>
  readonly firstChild: SyntaxNode | null
  readonly parent: SyntaxNode | null
  readonly childForFieldName: (name: string) => SyntaxNode | null
}

/**
 * A parse, which must be deleted: its memory lives in the WebAssembly heap.
 *
 * @since 0.3.0
 * @category models
 */
export interface SyntaxTree {
  readonly rootNode: SyntaxNode
  readonly delete: () => void
}

/**
 * The loaded bash grammar.
 *
 * @since 0.3.0
 * @category models
 */
export interface Grammar {
  readonly parse: (source: string) => SyntaxTree | null
}

/**
 * Analyses a script the line runs, `depth` scripts deep (see
 * `CommandLine.make`): its readings, writes, glob names and `open` join the
 * line's.
 *
 * @since 0.3.0
 * @category models
 */
export type Analyse = (script: string, depth: number) => LineAnalysis.Analysis
