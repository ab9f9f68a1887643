// The group row of one exploration in the lineage tree, a treeitem of the session tree
// (tree-item.ts): "Tried 3 ways · A B C" under the parent, expandable to show its branches
// (each labelled); Enter or a click opens the board (docs/architecture.md §8). Whether any
// branch runs is read live, and said in words too.
import { type ExplorationRowModel, explorationGroupKey } from './lineage.js'
import { rowHeight } from './session-display.js'
import { type TreeItemPlace, treeItemAttributes } from './tree-item.js'
import { useHost, useStore } from './use-host.js'

const indentPx = 14

export function ExplorationRow(props: {
  top: number
  place: TreeItemPlace
  row: ExplorationRowModel
  onOpen: () => void
}) {
  const store = useStore()
  const { row } = props
  const running = useHost((state) =>
    row.branches.some((branch) => state.sessions.get(branch.id)?.status === 'running'),
  )
  const labels = row.branches.map((branch) => branch.exploration?.label ?? '?').join(' ')
  const ways = `Tried ${row.size} way${row.size === 1 ? '' : 's'}`
  const shown = row.branches.length
  return (
    <div
      {...treeItemAttributes(props.place)}
      role="treeitem"
      tabIndex={props.place.tabbable ? 0 : -1}
      className="tree-row session-row exploration-row"
      style={{ top: props.top, height: rowHeight, paddingLeft: 8 + row.depth * indentPx }}
      data-testid="exploration-row"
      data-exploration={row.exploration}
      data-parent-id={row.parentId}
      data-depth={row.depth}
      aria-expanded={row.expanded}
      onKeyDown={props.place.onKeyDown}
      onClick={(event) => {
        // The chevron shows or hides the branches; anywhere else opens the board.
        if ((event.target as Element).closest('[data-testid="exploration-toggle"]')) {
          store.toggleExpanded(explorationGroupKey(row.exploration))
        } else props.onOpen()
      }}
    >
      <span
        className="toggle"
        data-testid="exploration-toggle"
        aria-hidden="true"
        title={`${row.expanded ? 'Hide' : 'Show'} the ${shown} branch${shown === 1 ? '' : 'es'} of this exploration`}
      >
        <span className={row.expanded ? 'chevron open' : 'chevron'}>›</span>
      </span>
      <span
        className="row-title exploration-title"
        data-testid="exploration-open"
        title={`${ways}: open the board to compare and keep one`}
      >
        <span className="title-text">{ways}</span>
        <span className="fork-point">{labels}</span>
        <span className="visually-hidden">, opens the board</span>
      </span>
      {running ? <span className="tag">running</span> : null}
    </div>
  )
}
