import { SMTPServer } from 'smtp-server'
import type { Test } from 'tap'

/**
 * A real SMTP server on 127.0.0.1 (random port) for the e-mail tests: it keeps every delivered
 * message, decoded enough to read (recipient, subject, html and text parts), and can be told to
 * refuse the next messages with a given SMTP reply (4xx transient, 5xx permanent).
 */
export interface ReceivedMail {
  from: string
  to: string[]
  subject: string
  html: string
  text: string
  raw: string
}

export interface TestSmtp {
  url: string
  port: number
  mails: ReceivedMail[]
  /** Refuse the next `count` messages (at RCPT TO) with this reply code and text. */
  refuseNext(count: number, code: number, message?: string): void
  /** Hold each message this long before accepting it (widens race windows). */
  delayMs: number
  /** Resolves when at least `count` mails have arrived, or rejects after `timeoutMs`. */
  waitFor(count: number, timeoutMs?: number): Promise<ReceivedMail[]>
}

function decodeQuotedPrintable(body: string): Buffer {
  const soft = body.replace(/=\r?\n/g, '')
  const bytes: number[] = []
  for (let i = 0; i < soft.length; i++) {
    const c = soft[i]!
    if (c === '=' && /^[0-9A-Fa-f]{2}$/.test(soft.slice(i + 1, i + 3))) {
      bytes.push(parseInt(soft.slice(i + 1, i + 3), 16))
      i += 2
    } else {
      bytes.push(...Buffer.from(c, 'utf8'))
    }
  }
  return Buffer.from(bytes)
}

/** RFC 2047 encoded words (=?UTF-8?Q?…?= / =?UTF-8?B?…?=), as nodemailer writes non-ASCII headers. */
function decodeWords(value: string): string {
  return value
    .replace(/\?=\s+=\?/g, '?==?')
    .replace(/=\?([^?]+)\?([QqBb])\?([^?]*)\?=/g, (_m, _charset: string, encoding: string, text: string) =>
      encoding.toUpperCase() === 'B'
        ? Buffer.from(text, 'base64').toString('utf8')
        : decodeQuotedPrintable(text.replace(/_/g, ' ')).toString('utf8'),
    )
}

function splitHeaders(part: string): { headers: Record<string, string>; body: string } {
  const at = part.search(/\r?\n\r?\n/)
  const head = at < 0 ? part : part.slice(0, at)
  const body = at < 0 ? '' : part.slice(at).replace(/^\r?\n\r?\n/, '')
  const headers: Record<string, string> = {}
  for (const line of head.replace(/\r?\n[ \t]+/g, ' ').split(/\r?\n/)) {
    const colon = line.indexOf(':')
    if (colon > 0) headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim()
  }
  return { headers, body }
}

function decodeBody(headers: Record<string, string>, body: string): string {
  const encoding = (headers['content-transfer-encoding'] ?? '').toLowerCase()
  if (encoding === 'base64') return Buffer.from(body.replace(/\s+/g, ''), 'base64').toString('utf8')
  if (encoding === 'quoted-printable') return decodeQuotedPrintable(body).toString('utf8')
  return body
}

function collectParts(headers: Record<string, string>, body: string, into: { html: string; text: string }) {
  const type = headers['content-type'] ?? 'text/plain'
  const boundary = /boundary="?([^";]+)"?/i.exec(type)?.[1]
  if (/^multipart\//i.test(type) && boundary) {
    for (const chunk of body.split(`--${boundary}`).slice(1)) {
      if (chunk.startsWith('--')) break
      const part = splitHeaders(chunk.replace(/^\r?\n/, ''))
      collectParts(part.headers, part.body, into)
    }
    return
  }
  const decoded = decodeBody(headers, body).replace(/\r?\n$/, '')
  if (/^text\/html/i.test(type)) into.html = decoded
  else if (/^text\/plain/i.test(type)) into.text = decoded
}

export function parseMail(raw: string, envelope: { from: string; to: string[] }): ReceivedMail {
  const { headers, body } = splitHeaders(raw)
  const parts = { html: '', text: '' }
  collectParts(headers, body, parts)
  return { ...envelope, subject: decodeWords(headers.subject ?? ''), ...parts, raw }
}

export async function startSmtp(t: Test): Promise<TestSmtp> {
  let refusals: { count: number; code: number; message: string } = { count: 0, code: 0, message: '' }
  const waiters = new Set<() => boolean>()
  const state: TestSmtp = {
    url: '',
    port: 0,
    mails: [],
    delayMs: 0,
    refuseNext(count, code, message = code >= 500 ? 'Mailbox unavailable' : 'Try again later') {
      refusals = { count, code, message }
    },
    waitFor(count, timeoutMs = 5000) {
      return new Promise((resolve, reject) => {
        const deadline = setTimeout(
          () => reject(new Error(`only ${state.mails.length} of ${count} mails arrived`)),
          timeoutMs,
        )
        const check = () => {
          if (state.mails.length >= count) {
            clearTimeout(deadline)
            resolve(state.mails)
            return true
          }
          return false
        }
        if (!check()) waiters.add(check)
      })
    },
  }
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS', 'AUTH'],
    logger: false,
    onRcptTo(_address, _session, callback) {
      if (refusals.count > 0) {
        refusals.count--
        const error = Object.assign(new Error(refusals.message), { responseCode: refusals.code })
        return callback(error)
      }
      callback()
    },
    onData(stream, session, callback) {
      const chunks: Buffer[] = []
      stream.on('data', (chunk: Buffer) => chunks.push(chunk))
      stream.on('end', () => {
        const envelope = {
          from: session.envelope.mailFrom ? session.envelope.mailFrom.address : '',
          to: session.envelope.rcptTo.map((r) => r.address),
        }
        setTimeout(() => {
          state.mails.push(parseMail(Buffer.concat(chunks).toString('utf8'), envelope))
          for (const check of [...waiters]) if (check()) waiters.delete(check)
          callback()
        }, state.delayMs)
      })
    },
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()))
  const address = server.server.address()
  state.port = typeof address === 'object' && address ? address.port : 0
  state.url = `smtp://127.0.0.1:${state.port}`
  t.teardown(() => new Promise<void>((resolve) => server.close(() => resolve())))
  return state
}
