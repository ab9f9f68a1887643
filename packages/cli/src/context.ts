// The CLI's composition root: the process things every command reads, passed in (no globals).

/** A stream the CLI writes to; `isTTY` decides spinners and colours. */
export interface OutputStream {
  write(chunk: string): boolean
  isTTY?: boolean
  columns?: number
}

export interface CliContext {
  env: Record<string, string | undefined>
  /** The directory `run`/`chat` create sessions in when no `--cwd` is given. */
  cwd: string
  /** TANGENT_HOME, resolved once. */
  home: string
  stdout: OutputStream
  stderr: OutputStream
  stdin: NodeJS.ReadableStream & { isTTY?: boolean }
  /**
   * What is wrong with the Node running the command, with what to do, when it is older than
   * package.json's `engines` (bin.ts checks before loading anything else; `tangent doctor` lists it).
   */
  oldNode?: string
}
