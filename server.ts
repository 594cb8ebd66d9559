import closeWithGrace from 'close-with-grace'
import { buildApp } from './app.js'
import { describeConfigError, ensureEnvFile, loadConfig } from './config.js'

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

  const app = await buildApp({ config })
  // SIGTERM/SIGINT: stop accepting, let in-flight requests finish, close the pool; force after 10 s.
  closeWithGrace({ delay: 10_000 }, async ({ signal, err }) => {
    if (err) app.log.error({ err }, 'shutting down after an error')
    else app.log.info({ signal }, 'shutting down')
    await app.close()
  })
  await app.listen({ host: config.HOST, port: config.PORT })
}

main().catch((error) => {
  process.stderr.write(`Outpost failed to start: ${(error as Error).message}\n`)
  process.exit(1)
})
