import { badRequest } from '../core/errors.js'

/**
 * Keys a content feature refuses because its app routes already use them as path segments
 * (`/remote-config/all` is the list, not a config named "all"): an operator could write such a key,
 * but no player could ever read it.
 */
export function reservedKeyCheck(reserved: ReadonlySet<string>, kind: string) {
  return (key: string, path: string) => {
    if (reserved.has(key)) throw badRequest(`"${key}" is reserved (it names a route) and cannot be a ${kind}`, path)
  }
}
