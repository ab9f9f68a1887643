// @tangent/protocol: Zod schemas and types of the Host JSON-RPC protocol.
export {}
