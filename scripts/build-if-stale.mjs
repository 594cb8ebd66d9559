// Compiles the TypeScript tree only when a source is newer than the last build, so `npm start` and
// `npm test` after an unchanged checkout start at once instead of spending 20-30 s in tsc. The browser
// console (console/) is built the same way, on its own: a change to it does not recompile the server.
import { execFileSync } from 'node:child_process'
import { readdirSync, statSync } from 'node:fs'
import { join } from 'node:path'

const OUTPUT = 'dist/server.js'
const CONSOLE_OUTPUT = 'dist/console/index.html'
const CONSOLE_ROOTS = ['console', 'features', 'scripts/build-console.mjs', 'package.json']
const ROOTS = [
  'app.ts',
  'server.ts',
  'config.ts',
  'cluster-primary.ts',
  'tsconfig.json',
  'package.json',
  'features',
  'platform',
  'db',
  'test',
  'bench',
  'scripts',
]

/** A feature's console pages are browser code: the server's build leaves them out (tsconfig.json's exclude). */
const CONSOLE_PAGES = /^features\/[^/]+\/console(\/|$)/

function newest(path, skip) {
  if (skip?.test(path)) return 0
  let stats
  try {
    stats = statSync(path)
  } catch {
    return 0
  }
  if (!stats.isDirectory()) return /\.(ts|tsx|json|html|css|mjs)$/.test(path) ? stats.mtimeMs : 0
  return readdirSync(path).reduce((latest, name) => Math.max(latest, newest(join(path, name), skip)), 0)
}

function builtAt(output) {
  try {
    return statSync(output).mtimeMs
  } catch {
    return 0
  }
}

let built = builtAt(OUTPUT)
if (Math.max(...ROOTS.map((root) => newest(root, CONSOLE_PAGES))) > built) {
  process.stdout.write(built ? 'Sources changed since the last build: compiling\n' : 'No build yet: compiling\n')
  execFileSync(process.execPath, ['node_modules/typescript/bin/tsc', '-p', 'tsconfig.json'], { stdio: 'inherit' })
}

built = builtAt(CONSOLE_OUTPUT)
if (Math.max(...CONSOLE_ROOTS.map((root) => newest(root))) > built) {
  process.stdout.write(built ? 'Console sources changed: building the console\n' : 'Building the console\n')
  execFileSync(process.execPath, ['scripts/build-console.mjs'], { stdio: 'inherit' })
}
