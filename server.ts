import closeWithGrace from 'close-with-grace'
import { buildApp } from './app.js'
import { describeConfigError, ensureEnvFile, loadConfig, type Config } from './config.js'
import { version } from './plugins/core/health.js'

const ENV_FILE = '.env'

async function main() {
  const generated = ensureEnvFile(ENV_FILE, process.env)
  if (generated) {
    process.stdout.write(
      `No configuration found: wrote ${ENV_FILE} with new keys (shown once, keep them safe):\n` +
        Object.entries(generated)
          .map(([name, value]) => `  ${name}=${value}\n`)
          .join(''),
    )
  }
  let config
  try {
    config = loadConfig(process.env, { envFile: ENV_FILE })
  } catch (error) {
    process.stderr.write(`${describeConfigError(error as Error)}\n`)
    process.exit(1)
  }

  // A person at a terminal reads one coloured line per event; anything else (a file, a container's
  // log driver, a log shipper) gets one JSON object per line.
  // Loaded only then: a server writing JSON does not pay for pino-pretty's start-up.
  const logStream = process.stdout.isTTY
    ? (await import('pino-pretty')).default({
        colorize: true,
        singleLine: true,
        translateTime: 'SYS:HH:MM:ss.l',
        // The request line's message already says method, path, status and time.
        ignore: 'pid,hostname,method,url,statusCode,responseTimeMs',
      })
    : undefined
  const app = await buildApp({ config, logStream })
  // SIGTERM/SIGINT: stop accepting, let in-flight requests finish, close the pool; force after 10 s.
  closeWithGrace({ delay: 10_000 }, async ({ signal, err }) => {
    if (err) app.log.error({ err }, 'shutting down after an error')
    else app.log.info({ signal }, 'shutting down')
    await app.close()
  })
  await app.listen({ host: config.HOST, port: config.PORT })
  // PORT=0 binds a free port: name the one the socket got.
  const address = app.server.address()
  const base = publicBaseUrl(config.HOST, typeof address === 'object' && address ? address.port : config.PORT)
  const database = describeDatabase(config)
  const consoleUrl = config.CONSOLE_ENABLED ? `${base}/console/` : undefined
  app.log.info(
    { version, database, url: base, docs: `${base}/docs`, ...(consoleUrl && { console: consoleUrl }) },
    `Outpost listening on ${base}, API docs at ${base}/docs${consoleUrl ? `, console at ${consoleUrl}` : ''} ` +
      `(version ${version}, database ${database})`,
  )
}

/** Which database, without its password: `sqlite ./data/outpost.db` or `mysql outpost@db:3306/outpost`. */
function describeDatabase(config: Config): string {
  return config.DB_DRIVER === 'mysql'
    ? `mysql ${config.DB_USER}@${config.DB_HOST}:${config.DB_PORT}/${config.DB_NAME}`
    : `sqlite ${config.DB_PATH}`
}

/**
 * The address an operator can open: a wildcard bind (0.0.0.0, ::) is not a place a browser can go,
 * so it is shown as localhost; IPv6 literals need brackets in a URL.
 */
function publicBaseUrl(host: string, port: number): string {
  const shown = host === '0.0.0.0' || host === '::' || host === '' ? 'localhost' : host
  return `http://${shown.includes(':') ? `[${shown}]` : shown}:${port}`
}

main().catch((error) => {
  process.stderr.write(`Outpost failed to start: ${(error as Error).message}\n`)
  process.exit(1)
})
