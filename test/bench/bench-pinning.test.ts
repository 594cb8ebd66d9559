import t, { type Test } from 'tap'
import { spawn } from 'node:child_process'
import { existsSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import {
  affinityOf,
  assertPinned,
  BorrowedPins,
  decidePinning,
  parseAffinity,
  parseCpuList,
  pinAll,
  pinnedCommand,
  tasksetPath,
  treeAffinity,
} from '../../bench/pinning.js'
import { peakRssBytes } from '../../bench/processes.js'

/** The bench's per-core machinery: the choice to pin, taskset's output, the affinity given back (the targets' verdicts: bench-targets.test.ts). */

t.test('pinning: on where taskset and two cores are there, off with the reason otherwise', async (t) => {
  const on = decidePinning('auto', [0, 1], '/usr/bin/taskset')
  t.same([on.serverCore, on.benchCore], [0, 1])
  t.match(on.note, /core 0.*core 1/)
  const narrowed = decidePinning('auto', [2, 5, 7], '/usr/bin/taskset')
  t.same([narrowed.serverCore, narrowed.benchCore], [2, 5], 'the first two cores this process may use')
  const single = decidePinning('auto', [1], '/usr/bin/taskset')
  t.equal(single.serverCore, null)
  t.match(single.note, /pinning off: .*1 core.*needs 2/)
  t.match(decidePinning('auto', [0, 1, 2], null).note, /pinning off: taskset is not installed/)
  t.match(decidePinning('off', [0, 1], '/usr/bin/taskset').note, /pinning off: --no-pin/)
  t.throws(
    () => decidePinning('on', [0], '/usr/bin/taskset'),
    /--per-core: .*--no-pin/,
    '--per-core fails rather than runs unpinned',
  )
})

t.test("taskset's affinity list is read; anything else is refused", async (t) => {
  t.same(parseCpuList('0-3,8'), [0, 1, 2, 3, 8])
  t.same(parseCpuList('1\n'), [1])
  t.throws(() => parseCpuList('3-1'), /not a CPU list/)
  t.throws(() => parseCpuList('a'), /not a CPU list/)
  t.equal(parseAffinity("pid 3801's current affinity list: 0,1\n"), '0,1')
  t.equal(parseAffinity("pid 12's current affinity list: 0-3,8\n"), '0-3,8')
  t.throws(() => parseAffinity("pid 12's current affinity mask: 3\n"), /unexpected taskset output/)
})

t.test('peak RSS is the kernel peak (VmHWM), never below the current resident set', async (t) => {
  t.equal(peakRssBytes('VmPeak:\t 900 kB\nVmHWM:\t  300 kB\nVmRSS:\t  200 kB\n'), 300 * 1024)
  t.equal(peakRssBytes('VmRSS:\t  200 kB\n'), 200 * 1024, 'no VmHWM: the resident set')
  t.equal(peakRssBytes(''), 0)
})

t.test(
  'a borrowed process is pinned, every thread, and gets its affinity back',
  { skip: !tasksetPath() },
  async (t) => {
    // Node has several threads from the start (V8's and libuv's): the check covers all of them.
    const [file, args] = pinnedCommand(null, process.execPath, ['-e', 'setTimeout(() => {}, 30000)'])
    const child = spawn(file, args, { stdio: 'ignore' })
    t.teardown(() => child.kill('SIGKILL'))
    await new Promise((resolve) => setTimeout(resolve, 300))
    const pid = child.pid!
    const before = affinityOf(pid)
    const threadsBefore = treeAffinity([pid])
    const logged: string[] = []
    const pins = new BorrowedPins((line) => logged.push(line), recordIn(t))
    pins.pin(pid, 0)
    t.equal(affinityOf(pid), '0')
    t.same([...treeAffinity([pid])], ['0'], 'every thread on core 0')
    t.doesNotThrow(() => assertPinned('child', [pid], 0))
    t.same([...pins.held()], [[pid, before]])
    pins.restore()
    t.equal(affinityOf(pid), before, 'the previous list is back')
    t.same(treeAffinity([pid]), threadsBefore, 'on every thread')
    t.equal(pins.held().size, 0)
    t.notOk(existsSync(pins.recordPath), 'the record is gone once all is given back')
    pins.restore()
    t.same(logged, [], 'a second restore has nothing to do')
    if (before !== '0') t.throws(() => assertPinned('child', [pid], 0), /runs on cores .* not on core 0 alone/)
  },
)

/** A pin record of the test's own, so a bench running meanwhile on this machine is not disturbed. */
function recordIn(t: Test): string {
  return join(t.testdir(), 'pins.json')
}

async function idleChild(t: Test) {
  const child = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 30000)'], { stdio: 'ignore' })
  t.teardown(() => child.kill('SIGKILL'))
  await new Promise((resolve) => setTimeout(resolve, 300))
  return child.pid!
}

t.test('a bench that holds the pins keeps a second one off them', { skip: !tasksetPath() }, async (t) => {
  const pinned = await idleChild(t)
  const otherBench = await idleChild(t)
  const recordPath = recordIn(t)
  writeFileSync(recordPath, JSON.stringify({ holder: otherBench, previous: { [pinned]: '0,1' } }))
  const before = affinityOf(pinned)
  const pins = new BorrowedPins(() => {}, recordPath)
  t.throws(() => pins.pin(pinned, 0), /another bench \(pid \d+\) has pinned pid \d+.*--no-pin/)
  t.equal(affinityOf(pinned), before, 'nothing was pinned')
  t.equal(pins.held().size, 0)
  t.match(readFileSync(recordPath, 'utf8'), String(otherBench), "the other bench's record stays")
})

t.test(
  'a bench killed mid-run: the next one gives back the affinity it recorded',
  { skip: !tasksetPath() },
  async (t) => {
    const pinned = await idleChild(t)
    const original = affinityOf(pinned)
    const killed = spawn(process.execPath, ['-e', ''], { stdio: 'ignore' })
    await new Promise((resolve) => killed.once('exit', resolve))
    // What a bench killed with SIGKILL leaves: its record, and the process still on core 0.
    const recordPath = recordIn(t)
    writeFileSync(recordPath, JSON.stringify({ holder: killed.pid, previous: { [pinned]: original } }))
    pinAll(pinned, 0)
    const logged: string[] = []
    const pins = new BorrowedPins((line) => logged.push(line), recordPath)
    pins.pin(pinned, 0)
    t.same([...pins.held()], [[pinned, original]], 'the recorded affinity, not core 0 it was left on')
    t.match(logged.join('\n'), new RegExp(`left pid ${pinned} pinned: its affinity ${original} is given back`))
    t.match(JSON.parse(readFileSync(recordPath, 'utf8')), { holder: process.pid, previous: { [pinned]: original } })
    pins.restore()
    t.equal(affinityOf(pinned), original)
    t.notOk(existsSync(recordPath))
  },
)

t.test('a command started pinned keeps its pid (taskset execs it)', { skip: !tasksetPath() }, async (t) => {
  const [file, args] = pinnedCommand(0, process.execPath, ['-e', 'setTimeout(() => {}, 30000)'])
  t.equal(file, tasksetPath())
  const child = spawn(file, args, { stdio: 'ignore' })
  t.teardown(() => child.kill('SIGKILL'))
  await new Promise((resolve) => setTimeout(resolve, 300))
  t.same([...treeAffinity([child.pid!])], ['0'])
  t.same(pinnedCommand(null, 'node', ['x']), ['node', ['x']], 'unpinned: the program itself')
})
