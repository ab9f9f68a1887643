// Store locations as TANGENT_STORE names them (docs/architecture.md §4): which engine a URL is
// for, and how to print one without its password. Plain string work, shared by the runtime (which
// chooses the engine) and the PostgreSQL engine (its messages).

/** True for a `postgres://` or `postgresql://` URL. */
export function isPostgresUrl(url: string): boolean {
  return /^postgres(ql)?:\/\//i.test(url)
}

/** The URL without its password (`user:***@`, `?password=***`), for messages and logs. */
export function redactUrl(url: string): string {
  return url.replace(/^([a-z]+:\/\/[^:@/]*):[^@/]*@/i, '$1:***@').replace(/([?&]password=)[^&]*/gi, '$1***')
}
