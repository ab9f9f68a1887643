// Collects a process's output within a byte cap, keeping its beginning and its end
// (errors tend to be at the end), and says how much was dropped.

export class OutputBuffer {
  readonly #half: number
  #head = Buffer.alloc(0)
  #tail = Buffer.alloc(0)
  #total = 0

  constructor(maxBytes: number) {
    this.#half = Math.max(1, Math.floor(maxBytes / 2))
  }

  push(chunk: Buffer): void {
    this.#total += chunk.length
    const room = this.#half - this.#head.length
    if (room > 0) {
      this.#head = Buffer.concat([this.#head, chunk.subarray(0, room)])
      chunk = chunk.subarray(room)
    }
    if (chunk.length === 0) return
    const tail = Buffer.concat([this.#tail, chunk])
    this.#tail = tail.subarray(Math.max(0, tail.length - this.#half))
  }

  text(): string {
    const kept = this.#head.length + this.#tail.length
    if (kept === this.#total) return Buffer.concat([this.#head, this.#tail]).toString('utf8')
    const omitted = this.#total - kept
    return `${this.#head.toString('utf8')}\n[… output truncated: ${omitted} of ${this.#total} bytes omitted …]\n${this.#tail.toString('utf8')}`
  }
}
