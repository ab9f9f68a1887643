// A tool call and its result, collapsed to one line until opened.
import type { ToolItem } from './transcript-model.js'

export function ToolCall({ item }: { item: ToolItem }) {
  const status = item.result === null ? 'pending' : item.result.isError ? 'error' : 'ok'
  return (
    <details className={`tool-call tool-${status}`} data-testid="tool-call" data-tool={item.toolName}>
      <summary>
        <span className="tool-name">{item.toolName}</span>
        <span className="tool-brief">{brief(item.input)}</span>
        <span className="tool-status">
          {status === 'pending' ? 'running…' : status === 'error' ? 'failed' : 'done'}
        </span>
      </summary>
      <div className="tool-body">
        <div className="tool-label">Input</div>
        <pre>{format(item.input)}</pre>
        {item.result ? (
          <>
            <div className="tool-label">{item.result.isError ? 'Error' : 'Result'}</div>
            <pre data-testid="tool-result">{format(item.result.output)}</pre>
          </>
        ) : null}
      </div>
    </details>
  )
}

function brief(input: unknown): string {
  if (typeof input !== 'object' || input === null) return input === undefined ? '' : String(input)
  const first = Object.values(input as Record<string, unknown>).find((value) => typeof value === 'string')
  return typeof first === 'string' ? first.split('\n')[0]!.slice(0, 80) : ''
}

function format(value: unknown): string {
  if (typeof value === 'string') return value
  if (typeof value === 'object' && value !== null) {
    const record = value as Record<string, unknown>
    // AI SDK tool outputs arrive as {type: 'text'|'json', value}.
    if ((record.type === 'text' || record.type === 'error-text') && typeof record.value === 'string')
      return record.value
    if (record.type === 'json' || record.type === 'error-json') return JSON.stringify(record.value, null, 2)
  }
  return JSON.stringify(value, null, 2) ?? String(value)
}
