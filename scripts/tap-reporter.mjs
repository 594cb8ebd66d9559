// The test report (`reporter` in .taprc): one line per test file as it ends, then every failed
// assertion in full, the failing files, and the counts, so a log read from its end (CI keeps only the
// tail) shows what failed and where. tap's own reporters draw a terminal UI, and without a terminal
// tap prints the raw TAP stream: one line per assertion, tens of thousands for the whole suite.
import { Transform } from 'node:stream'
import { Parser } from 'tap-parser'
import { stringify } from 'tap-yaml'

const seconds = (ms) => `${(ms / 1000).toFixed(1)} s`
const indent = (text, by) =>
  text
    .split('\n')
    .map((line) => (line ? by + line : line))
    .join('\n')

export default class TerseReport extends Transform {
  constructor() {
    super()
    this.parser = new Parser()
    this.files = []
    this.failures = []
    this.counts = { pass: 0, fail: 0, skip: 0, todo: 0 }
    // Each top-level subtest of the runner is one test file; its closing point (with the file's
    // time and verdict, exit code and timeout included) comes right after the file's own results.
    this.pending = new Map()
    this.parser.on('child', (file) => this.pending.set(file.name, this.watchFile(file)))
    this.parser.on('assert', (result) => this.fileEnded(result))
    this.parser.on('comment', (line) => {
      // The runner's own notes (coverage) go through as they are; the TAP counts are restated below.
      if (!/^# \{ total:|^# time=/.test(line)) this.push(line)
    })
    this.parser.on('extra', (text) => this.push(text))
  }

  /** Follows one file's results down its subtests; returns what it has seen so far. */
  watchFile(file) {
    const seen = { asserts: 0, failed: [] }
    const watch = (parser, path) => {
      let lastChild = null
      parser.on('child', (child) => {
        lastChild = child.name
        watch(child, [...path, child.name])
      })
      parser.on('assert', (result) => {
        // A subtest's own closing point repeats what its assertions said: only leaves are counted.
        if (lastChild !== null && result.name === lastChild) {
          lastChild = null
          return
        }
        seen.asserts++
        if (result.todo) this.counts.todo++
        else if (result.skip) this.counts.skip++
        else if (result.ok) this.counts.pass++
        else {
          this.counts.fail++
          seen.failed.push({ path: [...path, result.name || '(unnamed)'], diag: result.diag })
        }
      })
    }
    watch(file, [])
    return seen
  }

  fileEnded(result) {
    const seen = this.pending.get(result.name) ?? { asserts: 0, failed: [] }
    this.pending.delete(result.name)
    const ok = result.ok && seen.failed.length === 0
    if (result.skip) return this.push(`skip    ${result.name}  (${result.skip === true ? 'skipped' : result.skip})\n`)
    const detail = seen.failed.length
      ? `${seen.failed.length} of ${seen.asserts} assertions failed`
      : `${seen.asserts} assertion${seen.asserts === 1 ? '' : 's'}`
    const time = result.time ? `, ${seconds(result.time)}` : ''
    this.push(`${ok ? 'ok    ' : 'FAILED'}  ${result.name}  (${detail}${time})\n`)
    // A file that failed without a failed assertion: it exited non-zero, timed out, or planned wrong.
    if (!ok && seen.failed.length === 0) seen.failed.push({ path: ['(the test process)'], diag: result.diag })
    this.files.push({ name: result.name, ok })
    for (const failure of seen.failed) this.failures.push({ file: result.name, ...failure })
  }

  _transform(chunk, _encoding, done) {
    this.parser.write(chunk)
    done()
  }

  _flush(done) {
    this.parser.end()
    const failing = this.files.filter((file) => !file.ok)
    if (this.failures.length) {
      this.push(`\n=== ${this.failures.length} failed assertion${this.failures.length === 1 ? '' : 's'} ===\n`)
      for (const failure of this.failures) {
        this.push(`\n${failure.file}\n  ${failure.path.join(' > ')}\n`)
        if (failure.diag && Object.keys(failure.diag).length) this.push(indent(stringify(failure.diag), '    '))
      }
    }
    this.push(
      `\n=== ${this.files.length} test files: ${this.files.length - failing.length} passed, ${failing.length} failed ===\n`,
    )
    if (failing.length) this.push(`Failing test files:\n${failing.map((file) => `  ${file.name}\n`).join('')}`)
    const { pass, fail, skip, todo } = this.counts
    this.push(`Assertions: ${pass} passed, ${fail} failed, ${skip} skipped${todo ? `, ${todo} todo` : ''}\n`)
    done()
  }
}
