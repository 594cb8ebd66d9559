import { readFileSync } from 'node:fs'

/**
 * `node dist/bench/profile-summary.js FILE.cpuprofile [N]`: a quick text view of a V8 CPU profile
 * that `npm run bench -- --profile` recorded: self time by package (or by project folder, or node's
 * own internals), then the N functions with the most self time.
 */
interface Node {
  id: number
  callFrame: { functionName: string; url: string; lineNumber: number }
}
const profile = JSON.parse(readFileSync(process.argv[2]!, 'utf8')) as { nodes: Node[]; samples: number[] }
const hits = new Map<number, number>()
for (const id of profile.samples) hits.set(id, (hits.get(id) ?? 0) + 1)

function owner(url: string, functionName: string): string {
  const pkg = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url)
  if (pkg) return pkg[1]!
  const own = /\/dist\/([^/]+(?:\/[^/]+)?)\//.exec(url)
  if (own) return `outpost ${own[1]}`
  if (url.startsWith('node:')) return 'node internals'
  return functionName.startsWith('(') ? functionName : 'native'
}

const self = new Map<string, number>()
const byOwner = new Map<string, number>()
for (const node of profile.nodes) {
  const n = hits.get(node.id) ?? 0
  if (n === 0) continue
  const { functionName, url, lineNumber } = node.callFrame
  const where = url.replace(/^.*node_modules\//, '').replace(/^file:\/\/.*\/dist\//, '')
  const key = `${functionName || '(anonymous)'} ${where}:${lineNumber + 1}`
  self.set(key, (self.get(key) ?? 0) + n)
  const group = owner(url, functionName)
  byOwner.set(group, (byOwner.get(group) ?? 0) + n)
}
const total = profile.samples.length
const print = (entries: Map<string, number>, count: number) => {
  for (const [key, n] of [...entries.entries()].sort((a, b) => b[1] - a[1]).slice(0, count)) {
    process.stdout.write(`${((100 * n) / total).toFixed(1).padStart(5)} %  ${key}\n`)
  }
}
process.stdout.write('self time by owner\n')
print(byOwner, 20)
process.stdout.write('\nself time by function\n')
print(self, Number(process.argv[3] ?? 30))
