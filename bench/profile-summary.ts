import { readFileSync } from 'node:fs'

/**
 * `node dist/bench/profile-summary.js FILE.cpuprofile`: the functions with the most self time in a
 * V8 CPU profile, as a quick text view of what `npm run bench -- --profile` recorded.
 */
interface Node {
  id: number
  callFrame: { functionName: string; url: string; lineNumber: number }
  hitCount?: number
}
const profile = JSON.parse(readFileSync(process.argv[2]!, 'utf8')) as { nodes: Node[]; samples: number[] }
const self = new Map<string, number>()
const hits = new Map<number, number>()
for (const id of profile.samples) hits.set(id, (hits.get(id) ?? 0) + 1)
for (const node of profile.nodes) {
  const { functionName, url, lineNumber } = node.callFrame
  const where = url.replace(/^.*node_modules\//, '').replace(/^file:\/\/.*\/dist\//, '')
  const key = `${functionName || '(anonymous)'} ${where}:${lineNumber + 1}`
  self.set(key, (self.get(key) ?? 0) + (hits.get(node.id) ?? 0))
}
const total = profile.samples.length
const top = [...self.entries()].sort((a, b) => b[1] - a[1]).slice(0, Number(process.argv[3] ?? 30))
for (const [key, n] of top) process.stdout.write(`${((100 * n) / total).toFixed(1).padStart(5)} %  ${key}\n`)
