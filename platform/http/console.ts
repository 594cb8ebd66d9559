import { existsSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import type { FastifyReply } from 'fastify'
import fp from 'fastify-plugin'
import fastifyStatic from '@fastify/static'

/** Where `npm run build` writes the console (scripts/build-console.mjs), beside the compiled server. */
export const CONSOLE_ROOT = fileURLToPath(new URL('../../console/', import.meta.url))
/** Where the console is served, apart from both API prefixes so its pages never pass the API gates. */
export const CONSOLE_PREFIX = '/console/'

/**
 * The console's pages run only the bundle's own scripts and styles and talk only to this origin: an
 * injected `<script>` or inline handler does not run, and no page may frame it (clickjacking).
 */
export const CONSOLE_CSP = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "font-src 'self'",
  "object-src 'none'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join('; ')

const YEAR_SECONDS = 365 * 24 * 60 * 60

function setConsoleHeaders(reply: FastifyReply, path: string) {
  reply.header('Content-Security-Policy', CONSOLE_CSP)
  reply.header('X-Content-Type-Options', 'nosniff')
  reply.header('Referrer-Policy', 'no-referrer')
  reply.header('X-Frame-Options', 'DENY')
  // Vite names every asset by its content hash, so a changed file is a new URL; index.html names the
  // current ones and must be asked for again on every open, or an old page would load deleted assets.
  reply.header(
    'Cache-Control',
    /[\\/]assets[\\/]/.test(path) ? `public, max-age=${YEAR_SECONDS}, immutable` : 'no-cache',
  )
}

/**
 * The browser console at /console/: static files built by `npm run build`, served pre-compressed
 * (brotli or gzip, as the browser accepts), with a strict CSP. It needs no key to load (a public
 * surface): everything it shows comes from the admin API, which checks the operator on every call.
 */
export default fp(
  async (app) => {
    if (!app.config.CONSOLE_ENABLED) return
    if (!existsSync(`${CONSOLE_ROOT}index.html`)) {
      app.log.warn(`The console is not built (${CONSOLE_ROOT} is missing): run npm run build to serve /console/`)
      return
    }
    await app.register(fastifyStatic, {
      root: CONSOLE_ROOT,
      prefix: CONSOLE_PREFIX,
      preCompressed: true,
      index: ['index.html'],
      cacheControl: false,
      dotfiles: 'ignore',
      decorateReply: true,
      setHeaders: setConsoleHeaders,
    })
    // The router ignores trailing slashes, so `/console/` reaches this route, not the files' wildcard.
    // Without the slash the page's relative asset paths would resolve one level up: redirect, relative
    // to the request, so the redirect also holds under a proxy's path prefix.
    app.get('/console', { schema: { hide: true } }, (request, reply) => {
      if (request.url.split('?', 1)[0].endsWith('/')) return reply.sendFile('index.html')
      return reply.redirect('./console/', 301)
    })
  },
  { name: 'console', dependencies: ['config', 'surfaces'] },
)
