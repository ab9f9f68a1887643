// The group row of one exploration in the lineage tree: "Tried 3 ways · A B C" under the
// parent, a toggle that shows its branches (each labelled), and a button that opens the board
// (docs/architecture.md §8). Whether any branch runs is read live, and said in words too.
import { type ExplorationRowModel, explorationGroupKey } from './lineage.js'
import { rowHeight } from './session-display.js'
import { useHost, useStore } from './use-host.js'

const indentPx = 14

export function ExplorationRow(props: { top: number; row: ExplorationRowModel; onOpen: () => void }) {
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
      className="tree-row session-row exploration-row"
      style={{ top: props.top, height: rowHeight, paddingLeft: 8 + row.depth * indentPx }}
      data-testid="exploration-row"
      data-exploration={row.exploration}
      data-parent-id={row.parentId}
      data-depth={row.depth}
    >
      <button
        type="button"
        className="toggle"
        data-testid="exploration-toggle"
        aria-expanded={row.expanded}
        aria-label={`${row.expanded ? 'Hide' : 'Show'} the ${shown} branch${shown === 1 ? '' : 'es'} of this exploration`}
        onClick={() => store.toggleExpanded(explorationGroupKey(row.exploration))}
      >
        <span className={row.expanded ? 'chevron open' : 'chevron'} aria-hidden="true">
          ›
        </span>
      </button>
      <button
        type="button"
        className="row-title exploration-title"
        data-testid="exploration-open"
        title={`${ways}: open the board to compare and keep one`}
        onClick={props.onOpen}
      >
        <span className="title-text">{ways}</span>
        <span className="fork-point">{labels}</span>
        <span className="visually-hidden">{running ? ', running' : ''}, open the board</span>
      </button>
      {running ? (
        <span className="tag" aria-hidden="true">
          running
        </span>
      ) : null}
    </div>
  )
}
