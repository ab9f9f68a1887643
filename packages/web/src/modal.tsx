// A modal shell on the native <dialog>: focus trapping and Esc come from the browser. On
// close, focus goes back to whatever had it before (the button that opened the dialog), or,
// when that is gone (the deleted session's row), to what took its place (focus-return.ts).
import { type KeyboardEvent, type ReactNode, useId, useLayoutEffect, useRef } from 'react'
import { openerPlace, returnFocus } from './focus-return.js'

export function Modal(props: {
  title: string
  testId: string
  onClose: () => void
  children: ReactNode
  className?: string
  onKeyDown?: (event: KeyboardEvent<HTMLDialogElement>) => void
}) {
  const dialog = useRef<HTMLDialogElement>(null)
  const headingId = useId()
  useLayoutEffect(() => {
    const element = dialog.current
    const opener = document.activeElement
    if (element && !element.open) element.showModal()
    const fallback = openerPlace(opener)
    return () => {
      element?.close()
      returnFocus(opener, fallback)
    }
  }, [])
  return (
    <dialog
      ref={dialog}
      className={props.className ? `modal ${props.className}` : 'modal'}
      data-testid={props.testId}
      aria-labelledby={headingId}
      onKeyDown={props.onKeyDown}
      onCancel={(event) => {
        event.preventDefault()
        props.onClose()
      }}
    >
      <h2 id={headingId}>{props.title}</h2>
      {props.children}
    </dialog>
  )
}
