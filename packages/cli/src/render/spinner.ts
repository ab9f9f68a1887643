// A one-line spinner on stderr while the model thinks; silent unless stderr is a terminal.
import type { OutputStream } from '../context.js'

const frames = ['⠋', '⠙', '⠹', '⠸', '⠼', '⠴', '⠦', '⠧', '⠇', '⠏']

export class Spinner {
  readonly #stream: OutputStream
  #timer: NodeJS.Timeout | null = null
  #frame = 0

  constructor(stream: OutputStream) {
    this.#stream = stream
  }

  start(label: string): void {
    if (this.#stream.isTTY !== true || this.#timer !== null) return
    const draw = () => {
      this.#stream.write(`\r${frames[this.#frame % frames.length]} ${label}`)
      this.#frame++
    }
    draw()
    this.#timer = setInterval(draw, 80)
    this.#timer.unref()
  }

  stop(): void {
    if (this.#timer === null) return
    clearInterval(this.#timer)
    this.#timer = null
    this.#stream.write('\r\x1b[K')
  }
}
