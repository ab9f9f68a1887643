// The message box: Enter sends, Shift+Enter adds a line, Esc stops the running turn.
// While a turn runs the send button becomes Stop. Holds the text of "Edit in new branch".
import { type KeyboardEvent, useEffect, useLayoutEffect, useRef, useState } from 'react'
import { isOpenSessionRunning } from './host-state.js'
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
    if (message === '' || running || !connected) return
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

  return (
    <div className="composer" data-testid="composer">
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
                ? 'The agent is working… (Esc stops it)'
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
          <span className="hint">Enter to send · Shift+Enter new line · Esc to stop</span>
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
