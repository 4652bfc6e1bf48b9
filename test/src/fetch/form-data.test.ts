import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { FormData } from '../../../src/fetch/form-data.js'
import { File } from '../../../src/fetch/file.js'

describe('FormData', () => {
  it('appends, gets, lists and deletes entries by name', () => {
    const form = new FormData()
    form.append('a', '1')
    form.append('a', '2')
    form.append('b', '3')
    assert.equal(form.get('a'), '1')
    assert.deepEqual(form.getAll('a'), ['1', '2'])
    assert.equal(form.has('b'), true)
    form.delete('a')
    assert.equal(form.has('a'), false)
    assert.equal(form.get('missing'), null)
    assert.deepEqual([...form], [['b', '3']])
  })

  it('set replaces all values at the position of the first', () => {
    const form = new FormData()
    form.append('a', '1')
    form.append('b', '2')
    form.append('a', '3')
    form.set('a', '4')
    assert.deepEqual([...form.entries()], [['a', '4'], ['b', '2']])
  })

  it('reads Blob values back as Files named blob or by the given filename', () => {
    const form = new FormData()
    form.append('x', new Blob(['hi'], { type: 'text/plain' }))
    form.append('y', new Blob(['yo']), 'yo.bin')
    const x = form.get('x') as File
    const y = form.get('y') as File
    assert.ok(x instanceof File)
    assert.equal(x.name, 'blob')
    assert.equal(x.type, 'text/plain')
    assert.equal(y.name, 'yo.bin')
  })

  it('converts non-Blob values to strings', () => {
    const form = new FormData()
    form.append('n', 42 as never)
    assert.equal(form.get('n'), '42')
  })

  it('throws a TypeError for any constructor argument other than undefined', () => {
    for (const arg of [null, {}, 'form', 0]) {
      assert.throws(() => new FormData(arg as never), (err: Error) => err instanceof TypeError && err.message.includes('no argument'))
    }
    assert.doesNotThrow(() => new FormData(undefined))
  })

  it('refuses a filename with a string value', () => {
    assert.throws(() => new FormData().append('a', 'b', 'c.txt'), TypeError)
  })

  it('reports FormData as its string tag', () => {
    assert.equal(Object.prototype.toString.call(new FormData()), '[object FormData]')
  })
})
