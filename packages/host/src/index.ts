// @tangent/host: The Host: live agents, workspaces, JSON-RPC over WebSocket/HTTP, serves the web UI.
export {}
