// Entry point: reads the token from the page URL (`?token=…`), connects to the Host that
// served this page (`ws://<same host>/rpc`), and renders the app.
import { StrictMode } from 'react'
import { createRoot } from 'react-dom/client'
import { App } from './app.js'
import { type Connection, HostStore } from './host-store.js'
import { HostContext } from './use-host.js'
import { connectWebSocketRpc } from './websocket-rpc.js'
import './styles.css'

function connect(): Connection {
  const token = new URLSearchParams(window.location.search).get('token') ?? ''
  const scheme = window.location.protocol === 'https:' ? 'wss:' : 'ws:'
  const socket = new WebSocket(`${scheme}//${window.location.host}/rpc?token=${encodeURIComponent(token)}`)
  const closed = new Promise<void>((resolve) =>
    socket.addEventListener('close', () => resolve(), { once: true }),
  )
  return { rpc: connectWebSocketRpc(socket), closed }
}

function initialSession(): string | null {
  const match = /^#session=(.+)$/.exec(window.location.hash)
  return match ? decodeURIComponent(match[1]!) : null
}

const store = new HostStore(connect, initialSession())
void store.start()

createRoot(document.getElementById('root')!).render(
  <StrictMode>
    <HostContext.Provider value={store}>
      <App />
    </HostContext.Provider>
  </StrictMode>,
)
