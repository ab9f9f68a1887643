import * as acp from '@agentclientprotocol/sdk/unstable'
import { describe, expect, it } from 'vitest'
import { acpMcpCapabilities, attachedMcpServersOf, tangentServerName } from './acp-mcp.js'

/** The RequestError a conversion threw. */
function refusal(servers: unknown[]): acp.RequestError {
  try {
    attachedMcpServersOf(servers as acp.McpServer[])
  } catch (error) {
    if (error instanceof acp.RequestError) return error
    throw error
  }
  throw new Error('expected a refusal')
}

describe('the editor’s MCP servers', () => {
  it('converts stdio and http servers, env and headers as records (the last of a name wins)', () => {
    expect(
      attachedMcpServersOf([
        {
          name: 'files',
          command: '/usr/bin/mcp-files',
          args: ['--root', '.'],
          env: [
            { name: 'TOKEN', value: 'a' },
            { name: 'TOKEN', value: 'b' },
            { name: '__proto__', value: 'kept' },
          ],
        },
        {
          type: 'http',
          name: 'docs',
          url: 'https://example.test/mcp',
          headers: [{ name: 'Authorization', value: 'Bearer x' }],
        },
      ]),
    ).toEqual([
      {
        name: 'files',
        command: '/usr/bin/mcp-files',
        args: ['--root', '.'],
        env: { TOKEN: 'b' },
      },
      { name: 'docs', url: 'https://example.test/mcp', headers: { Authorization: 'Bearer x' } },
    ])
    expect(attachedMcpServersOf(undefined)).toEqual([])
    expect(attachedMcpServersOf(null)).toEqual([])
  })

  it('makes editor names into tool-safe server names, each unique', () => {
    expect(tangentServerName('Brave Search')).toBe('Brave-Search')
    expect(tangentServerName('../../etc')).toBe('etc')
    expect(tangentServerName('a__b___c')).toBe('a_b_c')
    expect(tangentServerName('')).toBe('server')
    expect(tangentServerName('x'.repeat(40))).toHaveLength(32)
    const names = attachedMcpServersOf([
      { name: 'my server', command: 'a', args: [], env: [] },
      { name: 'my/server', command: 'b', args: [], env: [] },
      { name: 'my server!', command: 'c', args: [], env: [] },
    ]).map((server) => server.name)
    expect(names).toEqual(['my-server', 'my-server-2', 'my-server-3'])
    for (const name of names) expect(name).toMatch(/^[A-Za-z0-9_-]{1,32}$/)
  })

  it('refuses what Tangent cannot take with invalid params naming the server', () => {
    const sse = refusal([{ type: 'sse', name: 'old', url: 'http://127.0.0.1:1/sse', headers: [] }])
    expect(sse.code).toBe(-32602)
    expect(sse.message).toMatch(/mcpServers\[0\] \("old"\): .*not sse/)
    const file = refusal([{ type: 'http', name: 'f', url: 'file:///etc/passwd', headers: [] }])
    expect(file.code).toBe(-32602)
    expect(file.message).toMatch(/mcpServers\[0\] \("f"\): url: an MCP server URL is http/)
    const huge = refusal([
      { name: 'big', command: 'x', args: [], env: [{ name: 'A', value: 'x'.repeat(300_000) }] },
    ])
    expect(huge.code).toBe(-32602)
    expect(huge.message).toMatch(/mcpServers\[0\] \("big"\): env/)
    const header = refusal([
      {
        type: 'http',
        name: 'h',
        url: 'http://127.0.0.1:1/mcp',
        headers: [{ name: 'X', value: 'a\r\nB: c' }],
      },
    ])
    expect(header.message).toMatch(/line break/)
    expect(refusal([{ name: 'nul', command: 'a\0b', args: [], env: [] }]).message).toMatch(/NUL/)
  })

  it('declares http and not sse', () => {
    expect(acpMcpCapabilities).toEqual({ http: true, sse: false })
  })
})
