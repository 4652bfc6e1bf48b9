import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import fc from 'fast-check'
import { Response as UndiciResponse } from '../../helpers/undici-reference.js'
import { FormData } from '../../../src/fetch/form-data.js'
import type { File } from '../../../src/fetch/file.js'
import { multipartChunks, parseMultipart, serializeMultipart } from '../../../src/fetch/multipart.js'

async function bytesOf (form: FormData, boundary?: string): Promise<{ bytes: Buffer, boundary: string, length: number }> {
  const body = serializeMultipart(form, boundary)
  const chunks: Uint8Array[] = []
  for await (const chunk of multipartChunks(body)) chunks.push(chunk)
  return { bytes: Buffer.concat(chunks), boundary: body.boundary, length: body.length }
}

describe('multipart/form-data', () => {
  it('serializes fields and files with the declared total length', async () => {
    const form = new FormData()
    form.append('field', 'value')
    form.append('file', new Blob(['abc'], { type: 'text/csv' }), 'data.csv')
    const { bytes, length } = await bytesOf(form, 'XyZ')
    assert.equal(bytes.length, length)
    assert.equal(bytes.toString(), [
      '--XyZ', 'Content-Disposition: form-data; name="field"', '', 'value',
      '--XyZ', 'Content-Disposition: form-data; name="file"; filename="data.csv"', 'Content-Type: text/csv', '', 'abc',
      '--XyZ--', ''
    ].join('\r\n'))
  })

  it('escapes quotes and line breaks in names and normalizes line breaks in values', async () => {
    const form = new FormData()
    form.append('a"b\nc', 'x\ny\rz')
    const { bytes } = await bytesOf(form, 'B')
    assert.match(bytes.toString(), /name="a%22b%0D%0Ac"\r\n\r\nx\r\ny\r\nz\r\n/)
  })

  it('uses application/octet-stream for a file without a type', async () => {
    const form = new FormData()
    form.append('f', new Blob([new Uint8Array([1, 2])]), 'f.bin')
    const { bytes } = await bytesOf(form, 'B')
    assert.match(bytes.toString('latin1'), /Content-Type: application\/octet-stream/)
  })

  it('parses what it serializes: names, string values, file names, types and bytes (property)', async () => {
    const name = fc.stringMatching(/^[A-Za-z0-9 _.-]{1,12}$/)
    const text = fc.string({ maxLength: 40 }).map((s) => s.replace(/\r/g, ''))
    const entry = fc.oneof(
      fc.record({ name, value: text }),
      fc.record({ name, file: fc.uint8Array({ maxLength: 64 }), filename: name, type: fc.constantFrom('', 'text/plain', 'image/png') })
    )
    await fc.assert(fc.asyncProperty(fc.array(entry, { maxLength: 6 }), async (entries) => {
      const form = new FormData()
      for (const e of entries) {
        if ('value' in e) form.append(e.name, e.value)
        else form.append(e.name, new Blob([e.file], { type: e.type }), e.filename)
      }
      const { bytes, boundary } = await bytesOf(form)
      const parsed = [...parseMultipart(bytes, boundary)]
      assert.equal(parsed.length, entries.length)
      for (let i = 0; i < entries.length; i++) {
        const e = entries[i]!
        const [parsedName, parsedValue] = parsed[i]!
        assert.equal(parsedName, e.name)
        if ('value' in e) {
          assert.equal(parsedValue, e.value.replace(/\n/g, '\r\n'))
        } else {
          const file = parsedValue as File
          assert.equal(file.name, e.filename)
          assert.equal(file.type, e.type || 'application/octet-stream')
          assert.deepEqual(new Uint8Array(await file.arrayBuffer()), e.file)
        }
      }
    }), { numRuns: 60 })
  })

  it('throws a TypeError describing a malformed body', () => {
    const cases: Array<[string, string]> = [
      ['no boundary here', 'boundary not found'],
      ['--B\r\nContent-Disposition: form-data; name="a"\r\n\r\nvalue', 'missing closing boundary'],
      ['--B\r\nX-Other: 1\r\n\r\nv\r\n--B--', 'Content-Disposition'],
      ['--B\r\nContent-Disposition: form-data\r\n\r\nv\r\n--B--', 'without a name'],
      ['--Bjunk', 'expected CRLF']
    ]
    for (const [body, message] of cases) {
      assert.throws(() => parseMultipart(Buffer.from(body), 'B'), (err: Error) => err instanceof TypeError && err.message.includes(message), body)
    }
  })

  it('rejects a bare CR or LF in part headers, as undici does, while body bytes may hold one', async () => {
    const malformed = [
      '--B\r\nContent-Disposition: form-data; name="a"\rX\r\n\r\nv\r\n--B--',
      '--B\r\nContent-Disposition: form-data; name="a"\nX: y\r\n\r\nv\r\n--B--',
      '--B\r\nContent-Disposition: form-data; name="a\rb"\r\n\r\nv\r\n--B--'
    ]
    const headers = { 'content-type': 'multipart/form-data; boundary=B' }
    for (const body of malformed) {
      assert.throws(() => parseMultipart(Buffer.from(body), 'B'), (err: Error) => err instanceof TypeError && err.message.includes('bare CR or LF'))
      await assert.rejects(new UndiciResponse(body, { headers }).formData(), TypeError)
    }
    const form = parseMultipart(Buffer.from('--B\r\nContent-Disposition: form-data; name="a"\r\n\r\nv\rw\r\n--B--'), 'B')
    assert.equal(form.get('a'), 'v\rw')
  })

  it('never throws anything but a TypeError on arbitrary bytes (property)', () => {
    fc.assert(fc.property(fc.uint8Array({ maxLength: 200 }), (bytes) => {
      try {
        parseMultipart(Buffer.concat([Buffer.from('--B\r\n'), bytes]), 'B')
      } catch (err) {
        assert.ok(err instanceof TypeError)
      }
    }))
  })

  it('agrees with the runtime both ways: its bodies parse here and ours parse there (property)', async () => {
    const name = fc.stringMatching(/^[A-Za-z0-9 _.-]{1,12}$/)
    const text = fc.string({ maxLength: 30 }).map((v) => v.replace(/\r/g, ''))
    const entry = fc.oneof(
      fc.record({ name, value: text }),
      fc.record({ name, file: fc.uint8Array({ maxLength: 32 }), filename: name, type: fc.constantFrom('', 'text/plain', 'image/png') })
    )
    const describeForm = async (form: Iterable<[string, string | Blob]>): Promise<unknown[]> => {
      const out: unknown[] = []
      for (const [n, v] of form) {
        out.push(typeof v === 'string' ? [n, v] : [n, (v as File).name, v.type, [...new Uint8Array(await v.arrayBuffer())]])
      }
      return out
    }
    await fc.assert(fc.asyncProperty(fc.array(entry, { maxLength: 5 }), async (entries) => {
      const ours = new FormData()
      const theirs = new globalThis.FormData()
      for (const e of entries) {
        if ('value' in e) {
          ours.append(e.name, e.value)
          theirs.append(e.name, e.value)
        } else {
          ours.append(e.name, new Blob([e.file], { type: e.type }), e.filename)
          theirs.append(e.name, new Blob([e.file], { type: e.type }), e.filename)
        }
      }
      // The runtime's serialization, parsed by conduit and by the runtime (the reference).
      const runtimeBody = new globalThis.Response(theirs)
      const contentType = runtimeBody.headers.get('content-type')!
      const boundary = /boundary=(.+)$/.exec(contentType)![1]!
      const runtimeBytes = Buffer.from(await runtimeBody.arrayBuffer())
      const parsedHere = parseMultipart(runtimeBytes, boundary)
      const asBody = (b: Buffer): globalThis.BodyInit => b as unknown as globalThis.BodyInit
      const reference = await describeForm(await new globalThis.Response(asBody(runtimeBytes), { headers: { 'content-type': contentType } }).formData() as unknown as Iterable<[string, string | Blob]>)
      // conduit's serialization, parsed by the runtime.
      const { bytes, boundary: ourBoundary } = await bytesOf(ours)
      const parsedThere = await new globalThis.Response(asBody(bytes), { headers: { 'content-type': `multipart/form-data; boundary=${ourBoundary}` } }).formData()
      assert.deepEqual(await describeForm(parsedHere as unknown as Iterable<[string, string | Blob]>), reference)
      assert.deepEqual(await describeForm(parsedThere as unknown as Iterable<[string, string | Blob]>), reference)
    }), { numRuns: 40 })
  })
})

