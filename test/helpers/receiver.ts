import { createServer, type IncomingHttpHeaders, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import type { Test } from 'tap'

/** What a receiver got: the headers and the raw body. */
export interface Received {
  headers: IncomingHttpHeaders
  body: string
  at: number
}

/** How the receiver answers one request: a status, or `hang` (never answers). */
export type Answer = number | 'hang'

export interface Receiver {
  url: string
  received: Received[]
  /** The answers for the next requests, in order; after them, 200. */
  answers: Answer[]
  /** Resolves when at least `count` requests have arrived, or rejects after `timeoutMs`. */
  waitFor(count: number, timeoutMs?: number): Promise<Received[]>
}

/** A webhook receiver on 127.0.0.1, closed when the test ends. */
export async function startReceiver(t: Test, path = '/hook'): Promise<Receiver> {
  const received: Received[] = []
  const answers: Answer[] = []
  const hanging = new Set<ServerResponse>()
  const server = createServer((req, res) => {
    const chunks: Buffer[] = []
    req.on('data', (chunk: Buffer) => chunks.push(chunk))
    req.on('end', () => {
      received.push({ headers: req.headers, body: Buffer.concat(chunks).toString('utf8'), at: Date.now() })
      const answer = answers.shift() ?? 200
      if (answer === 'hang') {
        hanging.add(res)
        return
      }
      res.writeHead(answer, { 'content-type': 'text/plain' })
      res.end(answer >= 300 ? `answer ${answer}` : 'ok')
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  t.teardown(async () => {
    for (const res of hanging) res.destroy()
    server.closeAllConnections()
    await new Promise((resolve) => server.close(resolve))
  })
  const { port } = server.address() as AddressInfo
  return {
    url: `http://127.0.0.1:${port}${path}`,
    received,
    answers,
    async waitFor(count, timeoutMs = 20_000) {
      const until = Date.now() + timeoutMs
      while (received.length < count) {
        if (Date.now() > until) throw new Error(`receiver got ${received.length} of ${count} requests in time`)
        await new Promise((resolve) => setTimeout(resolve, 25))
      }
      return received
    },
  }
}
