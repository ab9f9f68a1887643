import { createRequire } from 'node:module'
import { describe, expect, it } from 'vitest'
import { z as esmZod } from 'zod'
import { lazySchema, zod } from './lazy-zod.js'

// zod's CommonJS build: another instance, as where Node refuses to require the ES module (the
// fallback of zod()) or a bundle carries its own copy. Lazy schemas must mix with it too.
const cjsZod = (createRequire(import.meta.url)('zod') as { z: typeof esmZod }).z

describe('zod()', () => {
  it('loads zod once and hands out the same namespace', () => {
    expect(zod()).toBe(zod())
    expect(typeof zod().object).toBe('function')
  })

  it('is the zod that `import` gives (one zod per process)', () => {
    expect(zod().ZodType).toBe(esmZod.ZodType)
  })
})

describe('lazySchema', () => {
  it('does not build until touched, then builds once', () => {
    let builds = 0
    const Name = lazySchema((z) => {
      builds++
      return z.string().min(1)
    })
    expect(builds).toBe(0)
    expect(Name.parse('a')).toBe('a')
    expect(Name.safeParse('').success).toBe(false)
    expect(builds).toBe(1)
  })

  it('nests inside z.object, z.array, z.union and z.discriminatedUnion', () => {
    const Text = lazySchema((z) => z.object({ type: z.literal('text'), text: z.string() }))
    const File = lazySchema((z) => z.object({ type: z.literal('file'), data: z.string() }))
    const Part = lazySchema((z) => z.discriminatedUnion('type', [Text, File]))
    const Message = lazySchema((z) => z.object({ parts: z.array(Part), note: z.union([Text, z.null()]) }))
    const value = {
      parts: [
        { type: 'text', text: 'hi' },
        { type: 'file', data: 'AA' },
      ],
      note: null,
    }
    expect(Message.parse(value)).toEqual(value)
    // Inside schemas of zod's ES and CommonJS instances too.
    for (const z of [esmZod, cjsZod]) {
      const Outer = z.object({ message: Message, first: Part.optional() })
      expect(Outer.parse({ message: value })).toEqual({ message: value })
    }
    const failure = Message.safeParse({ parts: [{ type: 'image' }], note: 3 })
    expect(failure.success).toBe(false)
    expect(failure.error?.issues.map((issue) => issue.path)).toEqual([['parts', 0, 'type'], ['note']])
  })

  it('reports the same errors as the schema it stands for', () => {
    const build = (z: typeof esmZod) => z.object({ id: z.string().regex(/^[a-z]+$/, 'lower-case only') })
    const lazy = lazySchema(build)
    const eager = build(esmZod)
    for (const input of [{ id: 'A' }, { id: 3 }, {}, null, 'x']) {
      const a = lazy.safeParse(input)
      const b = eager.safeParse(input)
      expect(a.success).toBe(false)
      expect(a.error?.issues).toEqual(b.error?.issues)
    }
    expect(() => lazy.parse({ id: 'A' })).toThrow(/lower-case only/)
  })

  it('is a zod schema to instanceof, `in` and key listing, in either zod instance', () => {
    const Count = lazySchema((z) => z.number().int())
    expect(Count instanceof esmZod.ZodType).toBe(true)
    expect(Count instanceof esmZod.ZodNumber).toBe(true)
    expect(Count instanceof esmZod.ZodString).toBe(false)
    expect(Count instanceof zod().ZodNumber).toBe(true)
    expect(cjsZod.ZodType).not.toBe(esmZod.ZodType)
    expect(Count instanceof cjsZod.ZodNumber).toBe(true)
    expect('~standard' in Count).toBe(true)
    expect(Object.keys(Count)).toEqual(Object.keys(zod().number().int()))
    expect(Reflect.ownKeys(Count)).toContain('_zod')
    expect(Object.getOwnPropertyDescriptor(Count, '_zod')?.configurable).toBe(true)
    expect(Count['~standard'].validate(2)).toEqual({ value: 2 })
  })

  it('derives schemas (optional, extend, array) that parse like eager ones', () => {
    const Base = lazySchema((z) => z.object({ a: z.string() }))
    const Extended = lazySchema((z) => Base.extend({ b: z.number() }))
    expect(Extended.parse({ a: 'x', b: 1, c: true })).toEqual({ a: 'x', b: 1 })
    expect(Base.optional().parse(undefined)).toBeUndefined()
    expect(Base.array().safeParse([{ a: 1 }]).success).toBe(false)
  })

  it('converts to JSON Schema with its descriptions, through either zod instance', () => {
    const Inner = lazySchema((z) => z.string().describe('the inner one'))
    const Tool = lazySchema((z) =>
      z.object({ path: z.string().describe('a file path'), inner: Inner }).describe('a tool input'),
    )
    for (const toJSONSchema of [esmZod.toJSONSchema, cjsZod.toJSONSchema]) {
      const schema = toJSONSchema(Tool) as {
        description?: string
        properties: Record<string, { description?: string }>
        required: string[]
      }
      expect(schema.description).toBe('a tool input')
      expect(schema.properties.path?.description).toBe('a file path')
      expect(schema.properties.inner?.description).toBe('the inner one')
      expect(schema.required).toEqual(['path', 'inner'])
    }
  })

  it('throws what its builder throws, each time it is touched', () => {
    const Broken = lazySchema((): esmZod.ZodString => {
      throw new Error('bad schema')
    })
    expect(() => Broken.parse('x')).toThrow('bad schema')
    expect(() => Broken.parse('x')).toThrow('bad schema')
  })

  it('refuses a schema that touches itself while being built, but may refer to itself', () => {
    const Self: esmZod.ZodString = lazySchema(() => Self.optional() as never)
    expect(() => Self.parse('x')).toThrow(/touched itself/)
    type Tree = { children: Tree[] }
    const Tree: esmZod.ZodType<Tree> = lazySchema((z) => z.object({ children: z.array(Tree) }))
    expect(Tree.parse({ children: [{ children: [] }] })).toEqual({ children: [{ children: [] }] })
    expect(Tree.safeParse({ children: [{ children: [3] }] }).success).toBe(false)
  })
})

describe('the browser build (lazy-zod-browser)', () => {
  it('holds no zod: a schema is not built until touched, and touching one says why it cannot be', async () => {
    const browser = await import('./lazy-zod-browser.js')
    let built = 0
    const schema = browser.lazySchema((z) => {
      built++
      return z.string()
    })
    expect(built).toBe(0)
    expect(() => schema.safeParse('x')).toThrow(/not in the browser build.*validate on the Host/)
    expect(() => browser.zod()).toThrow(/not in the browser build/)
    expect(built).toBe(0)
  })
})
