// Compiles the TypeScript tree only when a source is newer than the last build, so `npm start` and
// `npm test` after an unchanged checkout start at once instead of spending 20-30 s in tsc.
import { execFileSync } from 'node:child_process'
import { readdirSync, statSync } from 'node:fs'
import { join } from 'node:path'

const OUTPUT = 'dist/server.js'
const ROOTS = [
  'app.ts',
  'server.ts',
  'config.ts',
  'tsconfig.json',
  'package.json',
  'plugins',
  'schemas',
  'db',
  'test',
  'bench',
  'scripts',
]

function newest(path) {
  let stats
  try {
    stats = statSync(path)
  } catch {
    return 0
  }
  if (!stats.isDirectory()) return path.endsWith('.ts') || path.endsWith('.json') ? stats.mtimeMs : 0
  return readdirSync(path).reduce((latest, name) => Math.max(latest, newest(join(path, name))), 0)
}

let built = 0
try {
  built = statSync(OUTPUT).mtimeMs
} catch {
  built = 0
}
const changed = Math.max(...ROOTS.map(newest))
if (changed > built) {
  process.stdout.write(built ? 'Sources changed since the last build: compiling\n' : 'No build yet: compiling\n')
  execFileSync(process.execPath, ['node_modules/typescript/bin/tsc', '-p', 'tsconfig.json'], { stdio: 'inherit' })
}
