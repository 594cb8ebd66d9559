// The Docker image's build stage, reproduced without Docker: the files its COPY lines name (read from
// the Dockerfile itself, so the list cannot drift), alone in an empty folder, then `npm ci` and
// `npm run build` there. A top-level file that the build needs and the Dockerfile leaves out fails
// here, as `cluster-primary.ts` once did (tsc: "Cannot find module './cluster-primary.js'").
import { execFile } from 'node:child_process'
import { cpSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { basename, join, posix, relative } from 'node:path'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'
import t from 'tap'

const run = promisify(execFile)
const root = fileURLToPath(new URL('../../../', import.meta.url))
const dockerfile = readFileSync(join(root, 'Dockerfile'), 'utf8')

interface Stage {
  name: string
  workdir: string
  lines: string[]
}

/** The Dockerfile's stages, each with its instructions (continuation lines joined, comments dropped). */
function stages(text: string): Stage[] {
  const instructions = text
    .replace(/\\\r?\n/g, ' ')
    .split(/\r?\n/)
    .map((line) => line.trim())
    .filter((line) => line && !line.startsWith('#'))
  const result: Stage[] = []
  for (const line of instructions) {
    const [keyword, ...rest] = line.split(/\s+/)
    const op = keyword.toUpperCase()
    if (op === 'FROM') {
      const as = rest.findIndex((word) => word.toUpperCase() === 'AS')
      result.push({ name: as >= 0 ? rest[as + 1] : String(result.length), workdir: '/', lines: [] })
    } else if (result.length > 0) {
      const stage = result[result.length - 1]
      // WORKDIR kept absolute: a COPY's relative destination is read against it.
      if (op === 'WORKDIR') stage.workdir = posix.resolve(stage.workdir, rest[0])
      stage.lines.push(op === 'WORKDIR' ? `WORKDIR ${stage.workdir}` : `${op} ${rest.join(' ')}`)
    }
  }
  return result
}

interface Copy {
  from?: string
  sources: string[]
  /** The destination, absolute in the image. */
  dest: string
  /** The destination is a folder (more than one source, or it ends in /). */
  intoFolder: boolean
}

/** The COPY instructions of a stage, with the working folder each one ran in. */
function copies(stage: Stage): Copy[] {
  const result: Copy[] = []
  let workdir = '/'
  for (const line of stage.lines) {
    if (line.startsWith('WORKDIR ')) workdir = line.slice('WORKDIR '.length)
    if (!line.startsWith('COPY ')) continue
    const words = line.slice('COPY '.length).split(/\s+/)
    if (words[0].startsWith('[')) throw new Error(`COPY in JSON form is not read by this test: ${line}`)
    const flags = words.filter((word) => word.startsWith('--'))
    const paths = words.filter((word) => !word.startsWith('--'))
    const dest = paths.pop()!
    result.push({
      from: flags.find((flag) => flag.startsWith('--from='))?.slice('--from='.length),
      sources: paths,
      dest: posix.resolve(workdir, dest),
      intoFolder: paths.length > 1 || dest.endsWith('/'),
    })
  }
  return result
}

/** `.dockerignore`'s entries, each a path from the context's root (Docker anchors them there). */
const ignored = existsSync(join(root, '.dockerignore'))
  ? readFileSync(join(root, '.dockerignore'), 'utf8')
      .split(/\r?\n/)
      .map((line) => line.trim())
      .filter((line) => line && !line.startsWith('#'))
      .map((line) => {
        if (/[*?[\]!]/.test(line)) throw new Error(`.dockerignore: "${line}" is a pattern this test does not read`)
        return line.replace(/^\/+|\/+$/g, '')
      })
  : []
const isIgnored = (path: string) => ignored.some((entry) => path === entry || path.startsWith(`${entry}/`))

/** Does what the COPY does, into the folder `image` that stands for the image's root. */
function copyIntoImage(copy: Copy, image: string) {
  for (const source of copy.sources) {
    const from = join(root, source)
    if (!existsSync(from)) throw new Error(`COPY ${source}: not in the repository`)
    // A folder's contents land in the destination; a file lands in it (folder) or as it (file).
    const to = statSync(from).isDirectory() || !copy.intoFolder ? copy.dest : posix.join(copy.dest, basename(source))
    cpSync(from, join(image, to), {
      recursive: true,
      filter: (path) => !isIgnored(relative(root, path)),
    })
  }
}

const all = stages(dockerfile)
const build = all.find((stage) => stage.name === 'build')
const runtime = all[all.length - 1]

t.test('the Dockerfile has a build stage and a runtime stage that copies from it', async (t) => {
  t.ok(build, 'a stage named build')
  t.not(runtime, build, 'the last stage is not the build stage')
  t.ok(
    copies(runtime).some((copy) => copy.from === 'build'),
    'the runtime stage copies from the build stage',
  )
})

t.test("every top-level TypeScript file is in the build stage's context", async (t) => {
  // The top-level files are the server's entry and what it imports directly: a new one needs its
  // COPY line, and tsc would only say so for the ones imported statically.
  const copied = new Set(copies(build!).flatMap((copy) => copy.sources))
  const topLevel = readdirSync(root).filter((name) => name.endsWith('.ts') && !name.endsWith('.d.ts'))
  t.ok(topLevel.includes('server.ts'), 'server.ts is found at the top level')
  for (const name of topLevel) t.ok(copied.has(name), `${name} is copied into the build stage`)
})

t.test('the build stage builds from exactly what it copies, and the runtime stage finds what it takes', async (t) => {
  const image = mkdtempSync(join(tmpdir(), 'outpost-docker-build-'))
  t.teardown(() => rmSync(image, { recursive: true, force: true }))
  const buildCopies = copies(build!)
  t.ok(buildCopies.length > 0, 'the build stage copies files')
  t.notOk(
    buildCopies.some((copy) => copy.from),
    'the build stage copies only from the context',
  )
  for (const copy of buildCopies) copyIntoImage(copy, image)
  const app = join(image, build!.workdir)
  t.notOk(existsSync(join(app, 'node_modules')), 'nothing installed before npm ci')
  t.notOk(existsSync(join(app, 'dist')), 'nothing built before the build')

  // `--ignore-scripts`: the build (tsc and the console's Vite bundle) needs no install script: not
  // better-sqlite3's native compile (about 2 minutes, and twice in CI) nor esbuild's, which only checks
  // its binary, shipped in its platform package. `--prefer-offline`: npm's cache, filled by CI's install.
  const npm = (args: string[]) =>
    run('npm', args, { cwd: app, env: { ...process.env, NODE_ENV: 'development' }, maxBuffer: 16 * 1024 * 1024 })
  await npm(['ci', '--ignore-scripts', '--prefer-offline', '--no-audit', '--no-fund'])
  try {
    await npm(['run', 'build'])
  } catch (error) {
    const { stdout, stderr } = error as { stdout: string; stderr: string }
    t.fail(`npm run build fails on the files the Dockerfile copies:\n${stdout}\n${stderr}`)
    return
  }
  t.ok(existsSync(join(app, 'dist/server.js')), 'dist/server.js is built')
  t.ok(existsSync(join(app, 'dist/console/index.html')), 'the console is built')
  t.notOk(existsSync(join(app, 'build/Release/better_sqlite3.node')), 'no native addon was compiled for it')
  // The build's own RUN goes on with `npm prune --omit=dev`: the server then runs on production
  // packages alone.
  await npm(['prune', '--omit=dev', '--ignore-scripts', '--no-audit', '--no-fund'])

  for (const copy of copies(runtime).filter((c) => c.from === 'build')) {
    for (const source of copy.sources) t.ok(existsSync(join(image, source)), `the runtime stage's ${source} exists`)
  }
  const cmd = runtime.lines.filter((line) => line.startsWith('CMD ')).pop()
  t.ok(cmd, 'the runtime stage has a CMD')
  const entry = (JSON.parse(cmd!.slice('CMD '.length)) as string[]).find((arg) => arg.endsWith('.js'))
  t.ok(entry, `the CMD runs a script: ${cmd}`)
  t.ok(existsSync(join(image, entry!)), `${entry} exists in the built image`)

  // Every module of the server loads with the production packages only (better-sqlite3 opens its
  // native addon only when a database is opened).
  const help = await run(process.execPath, [join(image, entry!), '--help'], { cwd: app })
  t.match(help.stdout, /--help/, 'the entry prints its usage')
  const dist = join(app, 'dist')
  const topLevel = readdirSync(dist).filter((name) => name.endsWith('.js'))
  // server.js runs its main() when imported: the others are the modules it loads.
  const load = topLevel
    .filter((name) => name !== basename(entry!))
    .map((name) => `await import(${JSON.stringify(join(dist, name))})`)
    .join(';')
  await run(process.execPath, ['--input-type=module', '-e', load], { cwd: app })
  t.pass(`the built ${topLevel.join(', ')} load with production packages`)
})
