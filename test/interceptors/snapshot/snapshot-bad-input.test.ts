import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { interceptors } from '../../../src/index.js'

describe('snapshot() bad input', () => {
  it('throws InvalidArgumentError for options that are not an object, null included, naming the value', () => {
    for (const [options, shown] of [[null, 'null'], [5, '5'], ['record', '"record"']] as const) {
      assert.throws(() => interceptors.snapshot(options as never), { code: 'LIB_ERR_INVALID_ARG', message: `snapshot(): options must be an object, got ${shown}` })
    }
  })

  it('refuses a load or save path that is not a non-empty string, synchronously and naming it', () => {
    const { recorder } = interceptors.snapshot()
    for (const [bad, shown] of [[5, '5'], ['', '""'], [{}, '[object Object]']] as const) {
      assert.throws(() => recorder.loadSnapshots(bad as never), { code: 'LIB_ERR_INVALID_ARG', message: `loadSnapshots(): filePath must be a non-empty string, got ${shown}` })
      assert.throws(() => recorder.saveSnapshots(bad as never), { code: 'LIB_ERR_INVALID_ARG', message: `saveSnapshots(): filePath must be a non-empty string, got ${shown}` })
    }
  })

  it('refuses request options that name no URL in deleteSnapshot() and getSnapshotInfo(), where they used to crash in the URL parser', () => {
    const { recorder } = interceptors.snapshot()
    const cases: Array<[unknown, string]> = [
      [null, 'requestOpts must be dispatch options (an object with origin and path), got null'],
      ['http://127.0.0.1/', 'requestOpts must be dispatch options (an object with origin and path), got "http://127.0.0.1/"'],
      [{ origin: 'nope', path: '/' }, 'requestOpts must name a URL by origin and path, got origin "nope" and path "/"'],
      [{ path: '/x' }, 'requestOpts must name a URL by origin and path, got origin undefined and path "/x"']
    ]
    for (const [bad, message] of cases) {
      assert.throws(() => recorder.deleteSnapshot(bad as never), { code: 'LIB_ERR_INVALID_ARG', message: `deleteSnapshot(): ${message}` })
      assert.throws(() => recorder.getSnapshotInfo(bad as never), { code: 'LIB_ERR_INVALID_ARG', message: `getSnapshotInfo(): ${message}` })
    }
    assert.equal(recorder.getSnapshotInfo({ origin: 'http://127.0.0.1:1', path: '/', method: 'GET' }), null)
  })
})
