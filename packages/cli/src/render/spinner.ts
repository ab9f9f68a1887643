// A one-line status on stderr while the model works (thinking, or waiting to retry a failed
// call, with a countdown); silent unless stderr is a terminal.
import type { OutputStream } from '../context.js'

const frames = ['⠋', '⠙', '⠹', '⠸', '⠼', '⠴', '⠦', '⠧', '⠇', '⠏']

export class Spinner {
  readonly #stream: OutputStream
  #timer: NodeJS.Timeout | null = null
  #frame = 0
  #label: () => string = () => ''

  constructor(stream: OutputStream) {
    this.#stream = stream
  }

  /** Shows `label` (read again at every frame: a countdown), or changes what a running one shows. */
  start(label: string | (() => string)): void {
    this.#label = typeof label === 'string' ? () => label : label
    if (this.#stream.isTTY !== true || this.#timer !== null) return
    this.#draw()
    this.#timer = setInterval(() => this.#draw(), 80)
    this.#timer.unref()
  }

  get running(): boolean {
    return this.#timer !== null
  }

  stop(): void {
    if (this.#timer === null) return
    clearInterval(this.#timer)
    this.#timer = null
    this.#stream.write('\r\x1b[K')
  }

  #draw(): void {
    const width = Math.max(20, (this.#stream.columns || 80) - 3)
    const label = this.#label()
    this.#stream.write(
      `\r${frames[this.#frame % frames.length]} ${label.length > width ? `${label.slice(0, width - 1)}…` : label}\x1b[K`,
    )
    this.#frame++
  }
}
