// Errors from the Host (with their stable code) and short notices, above the transcript.
// Also the shared-directory warning when another session runs in the same folder. Notices are
// read out by the page's one polite live region (live-announcer.tsx), not by live regions of
// their own, so each is heard once.
import { titleOf } from './session-display.js'
import { useHost, useStore } from './use-host.js'

export function ErrorBanner() {
  const store = useStore()
  const notices = useHost((state) => state.notices)
  const shared = useHost((state) => state.sharedActivity)
  const openSessionId = useHost((state) => state.openSessionId)
  const sessions = useHost((state) => state.sessions)
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
        <div
          key={notice.id}
          className={notice.tone === 'error' ? 'banner banner-error' : 'banner banner-info'}
          data-testid={notice.tone === 'error' ? 'error-banner' : 'notice'}
          data-code={notice.code}
        >
          {notice.tone === 'error' ? <code className="error-code">{notice.code}</code> : null}
          <span className="banner-text">{notice.message}</span>
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
