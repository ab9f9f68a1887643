// A modal shell on the native <dialog>: focus trapping and Esc come from the browser.
import { type ReactNode, useEffect, useRef } from 'react'

export function Modal(props: { title: string; testId: string; onClose: () => void; children: ReactNode }) {
  const dialog = useRef<HTMLDialogElement>(null)
  useEffect(() => {
    const element = dialog.current
    if (element && !element.open) element.showModal()
    return () => element?.close()
  }, [])
  return (
    <dialog
      ref={dialog}
      className="modal"
      data-testid={props.testId}
      aria-label={props.title}
      onCancel={(event) => {
        event.preventDefault()
        props.onClose()
      }}
    >
      <h2>{props.title}</h2>
      {props.children}
    </dialog>
  )
}
