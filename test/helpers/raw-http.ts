import { request as httpRequest } from 'node:http'

export interface RawAnswer {
  status: number
  headers: Record<string, string | string[] | undefined>
  text: string
}

/**
 * One request over a real socket with the target sent byte for byte (fetch and inject would
 * normalize it): what a game sends when its server URL ends in a slash (`//api/v1/...`).
 */
export function rawRequest(
  base: URL,
  method: string,
  target: string,
  headers: Record<string, string> = {},
  body?: string,
): Promise<RawAnswer> {
  return new Promise((resolve, reject) => {
    const req = httpRequest({ host: base.hostname, port: base.port, method, path: target, headers }, (res) => {
      let text = ''
      res.setEncoding('utf8')
      res.on('data', (chunk: string) => (text += chunk))
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, text }))
    })
    req.setTimeout(10_000, () => req.destroy(new Error(`timeout: ${method} ${target}`)))
    req.on('error', reject)
    req.end(body)
  })
}
