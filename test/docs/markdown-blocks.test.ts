import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import fc from 'fast-check'
import { codeBlocks } from './markdown-blocks.js'

// Lines that can never be read as a fence.
const codeLine = fc.string({ maxLength: 30 }).filter((line) => !/^ {0,3}(```|~~~)/.test(line) && !/[\r\n]/.test(line))
const language = fc.constantFrom('ts', 'js', 'json', 'sh', 'text', '')

describe('reading fenced code blocks from markdown', () => {
  it('finds every block with its language, first line and exact content, whatever surrounds it', () => {
    fc.assert(fc.property(fc.array(fc.record({ before: fc.array(codeLine, { maxLength: 3 }), language, code: fc.array(codeLine, { maxLength: 5 }) }), { maxLength: 5 }), (parts) => {
      const lines: string[] = []
      const expected = parts.map((part) => {
        lines.push(...part.before)
        const line = lines.length + 1
        lines.push('```' + part.language, ...part.code, '```')
        return { line, language: part.language, noRun: undefined, code: part.code.join('\n') }
      })
      assert.deepEqual(codeBlocks(lines.join('\n')), expected)
    }))
  })

  it('reads no-run and its reason from the info string', () => {
    const blocks = codeBlocks('```ts no-run: an excerpt of examples/x.ts\nconst a: A = b\n```\n```TS no-run\n```\n```js\n```')
    assert.deepEqual(blocks.map(({ language, noRun }) => ({ language, noRun })), [
      { language: 'ts', noRun: 'an excerpt of examples/x.ts' },
      { language: 'ts', noRun: '' },
      { language: 'js', noRun: undefined }
    ])
  })

  it('closes a block only with the same fence character, at least as long, and nothing after it', () => {
    const blocks = codeBlocks('````md\n```ts\ninner\n```\n~~~~\n````\n~~~json\n{}\n```\n~~~')
    assert.deepEqual(blocks.map((block) => block.code), ['```ts\ninner\n```\n~~~~', '{}\n```'])
  })

  it('keeps an unclosed block to the end of the file', () => {
    assert.deepEqual(codeBlocks('text\n```ts\nlast line'), [{ line: 2, language: 'ts', noRun: undefined, code: 'last line' }])
  })
})
