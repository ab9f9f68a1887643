// One option of a radio choice in a dialog (fork files mode, what to do with a worktree):
// a title and one sentence saying what it means.
import type { ReactNode } from 'react'

export function ChoiceOption<T extends string>(props: {
  name: string
  value: T
  selected: T
  onSelect: (value: T) => void
  testId: string
  title: string
  children: ReactNode
}) {
  const checked = props.selected === props.value
  return (
    <label className={checked ? 'option selected' : 'option'}>
      <input
        type="radio"
        name={props.name}
        data-testid={props.testId}
        checked={checked}
        onChange={() => props.onSelect(props.value)}
      />
      <span>
        <strong>{props.title}</strong>
        <span className="muted">{props.children}</span>
      </span>
    </label>
  )
}
