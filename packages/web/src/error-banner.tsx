// Errors from the Host and short notices, above the transcript: only the open session's (and
// the page's), at most three, each going by itself unless it asks for an answer
// (notices-store.ts). An error leads with what happened and what to do; its stable code comes
// after. Also the shared-directory warning when another session runs in the same folder.
// Notices are read out by the page's one polite live region (live-announcer.tsx), not by live
// regions of their own, so each is heard once.
import { visibleNotices } from './notices-store.js'
import { titleOf } from './session-display.js'
import { useHost, useStore } from './use-host.js'

/** At most this many notices on screen (the newest): they must not push the transcript away. */
const shownNotices = 3

/** What to do about an error, for codes whose message says only what happened. */
const whatToDo: Record<string, string> = {
  'session-busy': 'Wait for its turn to end, or stop it (Esc), then try again.',
  'model-unavailable': 'Choose another model, or set the provider’s key and restart `tangent serve`.',
  'images-unsupported': 'Choose a model that takes images, or send the message without them.',
  'invalid-model': 'Choose a model from the list.',
  'folder-not-found': 'Check the path, or pick the folder with Browse….',
  'session-not-found': 'It may have been deleted: pick another session in the sidebar.',
  'snapshot-unavailable': 'Nothing was changed: this point has no snapshot to go back to.',
  'git-failed': 'Check that git is installed and works in this folder.',
  'disk-full': 'Free some disk space, then try again.',
  internal: 'Try again; if it keeps failing, the Host’s log says more.',
}

export function ErrorBanner() {
  const store = useStore()
  const allNotices = useHost((state) => state.notices)
  const shared = useHost((state) => state.sharedActivity)
  const openSessionId = useHost((state) => state.openSessionId)
  const sessions = useHost((state) => state.sessions)
  const notices = visibleNotices(allNotices, openSessionId).slice(-shownNotices)
  const others =
    shared && openSessionId !== null && shared.sessionIds.includes(openSessionId)
      ? // The Host says when sharing starts; the live status says whether it still goes on.
        shared.sessionIds.filter((id) => id !== openSessionId && sessions.get(id)?.status === 'running')
      : []

  // A refused token stays said while the page retries (each retry is refused the same way).
  const refused = useHost((state) => state.tokenRefused && state.connection !== 'open')
  const lost = useHost((state) => state.connection === 'closed') || refused

  if (notices.length === 0 && others.length === 0 && !lost) return null
  return (
    <div className="banners">
      {lost ? (
        <div className="banner banner-warning" data-testid="connection-lost" role="status">
          <span className="banner-text">
            {refused
              ? 'The Host does not accept this page’s token: it has restarted with a new one, or the address had none. Open the address `tangent serve` printed (it ends in ?token=…).'
              : 'Lost the connection to the Host. Retrying…'}
          </span>
        </div>
      ) : null}
      {others.length > 0 ? (
        <div className="banner banner-warning" data-testid="shared-activity" role="status">
          <span>
            Also running in this folder:{' '}
            <strong>{others.map((id) => titleOf(sessions.get(id)) || id).join(', ')}</strong>. Their edits and
            this session's land in the same files.
          </span>
        </div>
      ) : null}
      {notices.map((notice) => (
        // biome-ignore lint/a11y/noStaticElementInteractions: hovering only pauses its timer
        <div
          key={notice.id}
          className={notice.tone === 'error' ? 'banner banner-error' : 'banner banner-info'}
          data-testid={notice.tone === 'error' ? 'error-banner' : 'notice'}
          data-code={notice.code}
          data-session-id={notice.sessionId ?? ''}
          onMouseEnter={() => store.holdNotice(notice.id)}
          onMouseLeave={() => store.releaseNotice(notice.id)}
          onFocus={() => store.holdNotice(notice.id)}
          onBlur={() => store.releaseNotice(notice.id)}
        >
          <span className="banner-text">
            {notice.message}
            {notice.tone === 'error' &&
            whatToDo[notice.code] &&
            !notice.message.includes(whatToDo[notice.code]!)
              ? ` ${whatToDo[notice.code]}`
              : ''}
            {notice.tone === 'error' ? (
              <>
                {' '}
                <code className="error-code">{notice.code}</code>
              </>
            ) : null}
          </span>
          {notice.action ? (
            <button
              type="button"
              className="action banner-action"
              data-testid="notice-action"
              onClick={() => void store.noticeAction(notice)}
            >
              {notice.action.label}
            </button>
          ) : null}
          <button
            type="button"
            className="icon-button"
            aria-label="Dismiss"
            data-testid="dismiss-notice"
            onClick={() => store.dismiss(notice.id)}
          >
            ×
          </button>
        </div>
      ))}
    </div>
  )
}
