import { createConnection, createServer, type AddressInfo, type Server, type Socket } from 'node:net'
import type { Test } from 'tap'
import { takeToken } from '../../platform/security/token-bucket.js'

/** Log lines the app wrote, parsed; pass `stream` to buildApp's `logStream`. */
export function logLines() {
  const lines: Array<Record<string, any>> = []
  return {
    lines,
    stream: { write: (line: string) => void lines.push(JSON.parse(line)) },
    matching: (pattern: RegExp) => lines.filter((line) => pattern.test(String(line.msg))),
  }
}

async function listen(t: Test, server: Server, sockets: Set<Socket>): Promise<number> {
  server.on('connection', (socket) => {
    sockets.add(socket)
    socket.on('close', () => sockets.delete(socket))
    socket.on('error', () => {})
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  t.teardown(
    () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy()
        server.close(() => resolve())
      }),
  )
  return (server.address() as AddressInfo).port
}

/** Splits RESP arrays of bulk strings (what a Redis client sends) off the front of `buffer`. */
function takeCommands(buffer: Buffer): { commands: string[][]; rest: Buffer } {
  const commands: string[][] = []
  let offset = 0
  for (;;) {
    const start = offset
    const header = buffer.indexOf('\r\n', offset)
    if (header < 0 || buffer[offset] !== 0x2a) return { commands, rest: buffer.subarray(start) }
    const count = Number(buffer.toString('latin1', offset + 1, header))
    offset = header + 2
    const args: string[] = []
    for (let i = 0; i < count; i++) {
      const lengthEnd = buffer.indexOf('\r\n', offset)
      if (lengthEnd < 0) return { commands, rest: buffer.subarray(start) }
      const length = Number(buffer.toString('latin1', offset + 1, lengthEnd))
      if (buffer.length < lengthEnd + 2 + length + 2) return { commands, rest: buffer.subarray(start) }
      args.push(buffer.toString('utf8', lengthEnd + 2, lengthEnd + 2 + length))
      offset = lengthEnd + 2 + length + 2
    }
    commands.push(args)
  }
}

/**
 * A stand-in for Redis that answers what ioredis and the rate limit send (the handshake, INFO, the
 * bucket script, done by the same `takeToken` the script mirrors) and can be stalled: it then reads
 * and never answers, as a Redis stopped with SIGSTOP does (the kernel still accepts connections and
 * takes the bytes).
 */
export async function fakeRedis(t: Test, options: { stalled?: boolean } = {}) {
  const sockets = new Set<Socket>()
  const buckets = new Map<string, number>()
  const answer = { current: 0, ttl: 0 }
  const state = { stalled: options.stalled ?? false, commands: 0 }
  const reply = ([name, ...args]: string[]): string => {
    switch (name.toLowerCase()) {
      case 'info': {
        const text = '# Server\r\nredis_version:7.0.0\r\nloading:0\r\n'
        return `$${Buffer.byteLength(text)}\r\n${text}\r\n`
      }
      case 'evalsha':
      case 'eval': {
        const [, , key, interval, max] = args
        buckets.set(key, takeToken(buckets.get(key) ?? 0, Date.now() * 1000, Number(interval), Number(max), answer))
        return `*2\r\n:${answer.current}\r\n:${answer.ttl}\r\n`
      }
      default:
        return '+OK\r\n'
    }
  }
  const server = createServer((socket) => {
    let pending: Buffer = Buffer.alloc(0)
    socket.on('data', (chunk) => {
      if (state.stalled) return
      const { commands, rest } = takeCommands(Buffer.concat([pending, chunk]))
      pending = rest
      state.commands += commands.length
      socket.write(commands.map(reply).join(''))
    })
  })
  const port = await listen(t, server, sockets)
  return { url: `redis://127.0.0.1:${port}`, state }
}

/**
 * A TCP proxy in front of `target` that can stop forwarding in both directions at once, as a
 * database stopped with SIGSTOP looks from outside: connections open, bytes accepted, nothing answers.
 * Connections made while paused are held too; `resume` lets everything through again.
 */
export async function pausableProxy(t: Test, target: { host: string; port: number }) {
  const sockets = new Set<Socket>()
  const held = new Set<Socket>()
  let paused = false
  const hold = (socket: Socket) => {
    held.add(socket)
    if (paused) socket.pause()
  }
  const server = createServer((client) => {
    const upstream = createConnection(target)
    sockets.add(upstream)
    upstream.on('close', () => {
      sockets.delete(upstream)
      client.destroy()
    })
    upstream.on('error', () => client.destroy())
    client.on('close', () => {
      held.delete(client)
      held.delete(upstream)
      upstream.destroy()
    })
    client.on('data', (chunk) => upstream.write(chunk))
    upstream.on('data', (chunk) => client.write(chunk))
    hold(client)
    hold(upstream)
  })
  const port = await listen(t, server, sockets)
  return {
    host: '127.0.0.1',
    port,
    pause() {
      paused = true
      for (const socket of held) socket.pause()
    },
    resume() {
      paused = false
      for (const socket of held) socket.resume()
    },
  }
}

/** Milliseconds `work` took. */
export async function timed<T>(work: () => Promise<T>): Promise<{ ms: number; value: T }> {
  const start = performance.now()
  const value = await work()
  return { ms: performance.now() - start, value }
}

/**
 * A TCP proxy in front of `target` that stands for one database host of a list (DB_HOST): `kill`
 * closes every connection through it and refuses new ones, as a server whose process died looks from
 * outside; `hang` takes connections and bytes but answers nothing (a machine gone from the network);
 * `revive` listens again on the same port and forwards. `opened` counts the connections made through it.
 */
export async function killableProxy(t: Test, target: { host: string; port: number }) {
  const sockets = new Set<Socket>()
  const state = { hung: false, opened: 0 }
  const track = (socket: Socket) => {
    sockets.add(socket)
    socket.on('close', () => sockets.delete(socket))
    socket.on('error', () => socket.destroy())
  }
  const serve = () =>
    createServer((client) => {
      state.opened++
      track(client)
      const upstream = createConnection(target)
      track(upstream)
      upstream.on('close', () => client.destroy())
      client.on('close', () => upstream.destroy())
      // Hung: bytes are taken and dropped, so the client waits for an answer that never comes.
      client.on('data', (chunk) => state.hung || upstream.write(chunk))
      upstream.on('data', (chunk) => state.hung || client.write(chunk))
    })
  let server = serve()
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const port = (server.address() as AddressInfo).port
  const kill = () =>
    new Promise<void>((resolve) => {
      for (const socket of sockets) socket.destroy()
      if (!server.listening) return resolve()
      server.close(() => resolve())
    })
  t.teardown(kill)
  return {
    host: '127.0.0.1',
    port,
    address: `127.0.0.1:${port}`,
    state,
    /** Every connection through it closed at once; new ones refused until `revive`. */
    kill,
    /** Connections are taken, and nothing is answered on any of them until `revive`. */
    hang() {
      state.hung = true
    },
    /** Forwarding again; listening again on the same port after `kill`. */
    async revive() {
      state.hung = false
      if (server.listening) return
      server = serve()
      await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve))
    },
  }
}
