// Builds the browser console (console/) into dist/console/: type-check with plain tsc, bundle with
// Vite (relative asset paths, one chunk per page), then write .br and .gz beside every text file so
// the server sends them pre-compressed. Prints the compressed size of the first load.
import { execFileSync } from 'node:child_process'
import { readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs'
import { join, resolve } from 'node:path'
import { brotliCompressSync, constants, gzipSync } from 'node:zlib'
import { build } from 'vite'

const ROOT = resolve('console')
const OUT = resolve('dist/console')
const FIRST_LOAD_BUDGET = 100 * 1024

try {
  execFileSync(process.execPath, ['node_modules/typescript/bin/tsc', '-p', 'console/tsconfig.json', '--noEmit'], {
    stdio: 'inherit',
  })
} catch {
  process.stderr.write('The console does not type-check (errors above)\n')
  process.exit(1)
}

await build({
  root: ROOT,
  base: './',
  logLevel: 'warn',
  configFile: false,
  esbuild: { jsx: 'automatic', jsxImportSource: 'preact' },
  build: {
    outDir: OUT,
    emptyOutDir: true,
    target: 'es2022',
    assetsDir: 'assets',
    // The CSP forbids inline scripts and styles: every byte comes from a file.
    assetsInlineLimit: 0,
    modulePreload: { polyfill: false },
    reportCompressedSize: false,
  },
})

const TEXT = /\.(html|js|css|svg|json|txt|map)$/
function walk(dir) {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name)
    return statSync(path).isDirectory() ? walk(path) : [path]
  })
}
const sizes = new Map()
for (const file of walk(OUT).filter((f) => TEXT.test(f))) {
  const raw = readFileSync(file)
  const br = brotliCompressSync(raw, { params: { [constants.BROTLI_PARAM_QUALITY]: 11 } })
  writeFileSync(`${file}.br`, br)
  writeFileSync(`${file}.gz`, gzipSync(raw, { level: 9 }))
  sizes.set(file, br.length)
}

// The first load: index.html and what it names (entry script, its static imports, the stylesheet).
const html = readFileSync(join(OUT, 'index.html'), 'utf8')
const named = [...html.matchAll(/(?:src|href)="\.\/([^"]+)"/g)].map((m) => join(OUT, m[1]))
const first = [join(OUT, 'index.html'), ...named].reduce((sum, file) => sum + (sizes.get(file) ?? 0), 0)
process.stdout.write(`Console built: first load ${(first / 1024).toFixed(1)} KB (brotli), budget 100 KB\n`)
if (first > FIRST_LOAD_BUDGET) {
  process.stderr.write('The console first load is over its 100 KB budget\n')
  process.exit(1)
}
