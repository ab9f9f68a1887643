// Size limits of the wire protocol: the Host refuses larger requests, and params
// schemas bound every string and array so one request cannot exhaust memory.

/** Largest HTTP body or WebSocket message the Host accepts, in bytes. */
export const maxMessageBytes = 1024 * 1024

/** Largest prompt text, in characters (well under `maxMessageBytes`). */
export const maxPromptChars = 256 * 1024

export const maxTitleChars = 200
export const maxPathChars = 4096
export const maxModelIdChars = 200
export const maxRequestIdChars = 200

/** Most events one `session.get` may ask for with `last`. */
export const maxLastEvents = 1_000_000
