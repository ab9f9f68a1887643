// Entry point: reads the token from the page URL (`?token=…`, then out of the address bar
// and into this tab's storage), connects to the Host that served this page
// (`ws://<same host>/rpc`), and renders the app.

import { createRpcClient, type RpcClient } from '@tangent/protocol'
import { StrictMode } from 'react'
import { createRoot } from 'react-dom/client'
import { App } from './app.js'
import { HostStore } from './host-store.js'
import { OpenSessionMemory } from './open-session-memory.js'
import { takePageToken } from './page-token.js'
import { hashTarget, readHash } from './store-helpers.js'
import { HostContext } from './use-host.js'
import './styles.css'

const { token, cleanUrl } = takePageToken(window.location, window.sessionStorage)
if (cleanUrl !== null) window.history.replaceState(window.history.state, '', cleanUrl)

/** Reading `localStorage` throws where the browser blocks storage: then nothing is remembered. */
function localStorageOrNull(): Storage | null {
  try {
    return window.localStorage
  } catch {
    return null
  }
}

function connect(): RpcClient {
  const scheme = window.location.protocol === 'https:' ? 'wss:' : 'ws:'
  const socket = new WebSocket(`${scheme}//${window.location.host}/rpc?token=${encodeURIComponent(token)}`)
  return createRpcClient(socket)
}

/** Whether the Host takes this page's token: a refused WebSocket upgrade looks like no answer. */
async function checkToken(): Promise<'accepted' | 'refused' | 'unreachable'> {
  try {
    const response = await fetch('/rpc', {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 0, method: 'host.info', params: {} }),
    })
    return response.status === 401 ? 'refused' : 'accepted'
  } catch {
    return 'unreachable'
  }
}

const storage = localStorageOrNull()
const store = new HostStore(connect, readHash(), new OpenSessionMemory(storage), undefined, checkToken)

/** A link to an event (`#session=<id>&seq=<n>`) opens its session and brings the event into view. */
function follow(target: ReturnType<typeof hashTarget>): void {
  if (target?.seq != null) void store.jumpTo(target.sessionId, target.seq)
}
// Read before start(): opening the session rewrites the address to `#session=<id>`.
const addressed = hashTarget(window.location.hash)
window.addEventListener('hashchange', () => follow(hashTarget(window.location.hash)))
void store.start().then(() => follow(addressed))

createRoot(document.getElementById('root')!).render(
  <StrictMode>
    <HostContext.Provider value={store}>
      <App storage={storage} />
    </HostContext.Provider>
  </StrictMode>,
)
