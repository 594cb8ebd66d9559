import { request as httpRequest, type IncomingMessage } from 'node:http'
import { request as httpsRequest } from 'node:https'
import type { LookupFunction } from 'node:net'
import type { AddressPolicy } from './address.js'

/**
 * One POST to a receiver: the host resolved and checked first (address.ts), then the connection made
 * to that very address (the `lookup` below answers with it), so a DNS answer that changes between the
 * check and the connect cannot point the request elsewhere. No redirect is followed (a 3xx is an
 * answer like any other), at most RESPONSE_READ_MAX bytes of the answer are read, and the whole
 * exchange is cut after the timeout.
 */
export const RESPONSE_READ_MAX = 4096

/** What one delivery attempt got, recorded so an operator can see why a receiver fails. */
export interface SendResult {
  /** The receiver's status code; null when no answer came (refused, network error, timeout). */
  statusCode: number | null
  durationMs: number
  /** Why no answer came, or the start of a non-2xx answer's body. */
  error: string | null
}

/** How a delivery is sent, an interface so tests can stand in for the network. */
export interface Sender {
  send(url: string, headers: Record<string, string>, body: string, timeoutMs: number): Promise<SendResult>
}

/** Sends over HTTP, checking each address against the policy at connect time so DNS cannot swap it. */
export class HttpSender implements Sender {
  constructor(private readonly policy: AddressPolicy) {}

  async send(url: string, headers: Record<string, string>, body: string, timeoutMs: number): Promise<SendResult> {
    const started = performance.now()
    const elapsed = () => Math.round(performance.now() - started)
    let target: URL
    let checked: { address: string; family: 4 | 6 }
    try {
      target = new URL(url)
      checked = await this.policy.resolve(target)
    } catch (error) {
      return { statusCode: null, durationMs: elapsed(), error: (error as Error).message.slice(0, 500) }
    }
    const lookup: LookupFunction = (_hostname, options, callback) => {
      if ((options as { all?: boolean }).all) {
        ;(callback as unknown as (e: null, a: Array<{ address: string; family: number }>) => void)(null, [
          { address: checked.address, family: checked.family },
        ])
      } else callback(null, checked.address, checked.family)
    }
    const signal = AbortSignal.timeout(timeoutMs)
    const requestFn = target.protocol === 'https:' ? httpsRequest : httpRequest
    return new Promise<SendResult>((resolve) => {
      let settled = false
      const finish = (result: SendResult) => {
        if (settled) return
        settled = true
        resolve(result)
      }
      const req = requestFn(
        target,
        {
          method: 'POST',
          headers: {
            ...headers,
            'content-type': 'application/json',
            'content-length': String(Buffer.byteLength(body)),
            'user-agent': 'Outpost-Webhooks/1',
          },
          lookup,
          signal,
          agent: false,
        },
        (res: IncomingMessage) => {
          const chunks: Buffer[] = []
          let size = 0
          const done = () => {
            const statusCode = res.statusCode ?? null
            const ok = statusCode !== null && statusCode >= 200 && statusCode < 300
            const text = Buffer.concat(chunks).subarray(0, RESPONSE_READ_MAX).toString('utf8')
            finish({ statusCode, durationMs: elapsed(), error: ok ? null : text.slice(0, 500) || null })
            res.destroy()
            req.destroy()
          }
          res.on('data', (chunk: Buffer) => {
            if (size >= RESPONSE_READ_MAX) return
            chunks.push(chunk)
            size += chunk.length
            // Enough read: the rest of a large answer is never taken in.
            if (size >= RESPONSE_READ_MAX) done()
          })
          res.on('end', done)
          res.on('error', done)
        },
      )
      req.on('error', (error: Error & { code?: string }) => {
        const timedOut = signal.aborted
        finish({
          statusCode: null,
          durationMs: elapsed(),
          error: timedOut
            ? `No answer within ${timeoutMs} ms`
            : `${error.code ?? 'ERROR'} ${error.message}`.slice(0, 500),
        })
      })
      req.end(body)
    })
  }
}
