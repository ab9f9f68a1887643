// Runs `tangent tui` full screen: Ink renders the app in the terminal's alternate screen (the
// shell's screen comes back as it was on quit), only the lines that changed are rewritten, and
// Ctrl-C is the app's (twice quits), not a signal. Loaded only by `tangent tui`: no other command
// pays for Ink and React.
import { render } from 'ink'
import type { Backend } from '../backend.js'
import type { CliContext } from '../context.js'
import type { Style } from '../render/style.js'
import { TuiApp } from './app.js'
import { CodeHighlighter } from './code-highlight.js'
import { TuiStore } from './tui-store.js'

export async function runTui(
  context: CliContext,
  backend: Backend,
  options: { folder: string; sessionId: string | null; style: Style },
): Promise<void> {
  const store = new TuiStore(backend, options.style, options.folder)
  await store.start(options.sessionId)
  // Shiki is not loaded here: the first code block in a known language starts its worker thread
  // (code-highlight.ts), which ends with the UI.
  const highlighter = new CodeHighlighter(options.style)
  const instance = render(<TuiApp store={store} style={options.style} highlighter={highlighter} />, {
    stdout: context.stdout as NodeJS.WriteStream,
    stdin: context.stdin as NodeJS.ReadStream,
    exitOnCtrlC: false,
    patchConsole: false,
    alternateScreen: true,
    incrementalRendering: true,
    interactive: true,
    maxFps: 60,
  })
  try {
    await instance.waitUntilExit()
  } finally {
    highlighter.close()
    await store.close()
  }
}
