// The message box: Enter sends, Shift+Enter adds a line, Esc stops the running turn.
// While a turn runs the send button becomes Stop, and Enter queues one message (shown above the
// box, sent when the turn ends, editable or cancelled until then). Holds the text of "Edit in new branch".
import { type KeyboardEvent, useEffect, useLayoutEffect, useRef, useState } from 'react'
import { isOpenSessionRunning } from './host-state.js'
import { ModePicker } from './mode-picker.js'
import { ModelPicker } from './model-picker.js'
import { useHost, useStore } from './use-host.js'

const maxHeightPx = 220
/** The message box's id: an approval card gives focus back to it after an answer. */
export const composerInputId = 'composer-input'

export function Composer() {
  const store = useStore()
  const openSessionId = useHost((state) => state.openSessionId)
  const running = useHost(isOpenSessionRunning)
  const connected = useHost((state) => state.connection === 'open')
  const draft = useHost((state) => state.draft)
  const canWrite = useHost((state) => state.openSessionId !== null || state.workspaces.length > 0)
  const startsIn = useHost((state) =>
    state.openSessionId === null
      ? state.workspaces.find((workspace) => workspace.id === state.activeWorkspaceId)?.name
      : undefined,
  )
  const queued = useHost((state) =>
    state.openSessionId === null ? undefined : state.queued.get(state.openSessionId),
  )
  const [text, setText] = useState('')
  const input = useRef<HTMLTextAreaElement>(null)
  const dialogOpen = useHost((state) => state.dialog !== null || state.restoreConflict !== null)
  // A session opened behind a dialog (a fork confirmed in the dialog) cannot take focus yet:
  // the dialog makes the page inert. It does so once the dialog has gone.
  const focusAfterDialog = useRef(false)

  // What is typed belongs to the session it was typed in: each keeps its own unsent text, so a
  // draft never follows the person into another conversation (and is sent there by mistake).
  const unsent = useRef(new Map<string | null, string>())
  const textOwner = useRef(openSessionId)
  const latestText = useRef(text)
  latestText.current = text
  useEffect(() => {
    if (textOwner.current === openSessionId) return
    if (latestText.current !== '') unsent.current.set(textOwner.current, latestText.current)
    else unsent.current.delete(textOwner.current)
    textOwner.current = openSessionId
    setText(unsent.current.get(openSessionId) ?? '')
    unsent.current.delete(openSessionId)
  }, [openSessionId])

  useEffect(() => {
    if (draft && draft.sessionId === openSessionId) {
      // A returned message goes before anything typed since it was sent.
      setText((current) =>
        draft.returned && current.trim() !== '' ? `${draft.text}\n\n${current}` : draft.text,
      )
      store.clearDraft()
      input.current?.focus()
    }
  }, [draft, openSessionId, store])

  // Focus follows the open session, so typing right after a click works.
  useEffect(() => {
    if (openSessionId === null) return
    input.current?.focus()
    const state = store.getState()
    focusAfterDialog.current =
      document.activeElement !== input.current && (state.dialog !== null || state.restoreConflict !== null)
  }, [openSessionId, store])
  useEffect(() => {
    if (dialogOpen || !focusAfterDialog.current) return
    focusAfterDialog.current = false
    input.current?.focus()
  }, [dialogOpen])

  useLayoutEffect(() => {
    const element = input.current
    if (!element || text === undefined) return
    element.style.height = 'auto'
    element.style.height = `${Math.min(element.scrollHeight, maxHeightPx)}px`
  }, [text])

  function send() {
    const message = text.trim()
    if (message === '' || !connected) return
    if (running) {
      // One message waits for the turn to end; a second is not taken (edit the queued one).
      if (queued === undefined && store.queueMessage(message)) setText('')
      return
    }
    setText('')
    // Sent with the button, focus would be lost when it turns into Stop: it stays in the box.
    input.current?.focus()
    void store.send(message)
  }

  function onKeyDown(event: KeyboardEvent<HTMLTextAreaElement>) {
    if (event.key === 'Enter' && !event.shiftKey && !event.nativeEvent.isComposing) {
      event.preventDefault()
      send()
    } else if (event.key === 'Escape' && running) {
      event.preventDefault()
      void store.abort()
    }
  }

  /** Takes the queued message back into the box (before what it holds) to edit it. */
  function editQueued() {
    if (openSessionId === null) return
    const taken = store.unqueueMessage(openSessionId)
    if (taken !== undefined) setText((current) => (current.trim() === '' ? taken : `${taken}\n\n${current}`))
    input.current?.focus()
  }

  function cancelQueued() {
    if (openSessionId !== null) store.unqueueMessage(openSessionId)
    input.current?.focus()
  }

  return (
    <div className="composer" data-testid="composer">
      {queued !== undefined ? (
        <section className="composer-queued" data-testid="queued-message" aria-labelledby="queued-heading">
          <p id="queued-heading" className="queued-heading" role="status">
            Queued: sent when the turn ends
          </p>
          <p className="queued-text" data-testid="queued-text">
            {queued}
          </p>
          <div className="queued-actions">
            <button type="button" className="button" data-testid="queued-edit" onClick={editQueued}>
              Edit
            </button>
            <button type="button" className="button" data-testid="queued-cancel" onClick={cancelQueued}>
              Cancel
            </button>
          </div>
        </section>
      ) : null}
      <div className="composer-box">
        <textarea
          ref={input}
          id={composerInputId}
          data-testid="composer-input"
          aria-label="Message"
          rows={1}
          placeholder={
            canWrite
              ? running
                ? queued !== undefined
                  ? 'The agent is working… one message is queued (Esc stops the turn)'
                  : 'The agent is working… Enter queues a message for when it ends (Esc stops it)'
                : startsIn
                  ? `Message the agent: starts a new session in ${startsIn}`
                  : 'Message the agent'
              : 'Open a folder first'
          }
          disabled={!canWrite}
          value={text}
          onChange={(event) => setText(event.target.value)}
          onKeyDown={onKeyDown}
        />
        <div className="composer-bar">
          <ModelPicker />
          <ModePicker />
          <span className="hint">
            {running ? 'Enter to queue' : 'Enter to send'} · Shift+Enter new line · Esc to stop
          </span>
          {running ? (
            <button
              type="button"
              className="button"
              data-testid="queue"
              disabled={text.trim() === '' || queued !== undefined || !connected}
              title={
                queued !== undefined
                  ? 'One message is queued already: edit or cancel it'
                  : 'Send this when the turn ends'
              }
              onClick={send}
            >
              Queue ↵
            </button>
          ) : null}
          {running ? (
            <button
              type="button"
              className="button stop"
              data-testid="stop"
              onClick={() => void store.abort()}
            >
              ■ Stop
            </button>
          ) : (
            <button
              type="button"
              className="button primary"
              data-testid="send"
              disabled={text.trim() === '' || !connected || !canWrite}
              onClick={send}
            >
              Send ↵
            </button>
          )}
        </div>
      </div>
    </div>
  )
}
