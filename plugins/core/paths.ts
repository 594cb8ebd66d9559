/** Where the two APIs live (API.md §1). */
export const APP_PREFIX = '/api/v1/app'
export const ADMIN_PREFIX = '/api/v1/admin'
const API_ROOT = '/api/v1/'

export const isApiPath = (url: string) => url.startsWith(API_ROOT)
export const isAdminPath = (url: string) => url === ADMIN_PREFIX || url.startsWith(`${ADMIN_PREFIX}/`) || url.startsWith(`${ADMIN_PREFIX}?`)

declare module 'fastify' {
  interface FastifyContextConfig {
    /** Health routes: no API key and no rate limit, even under /api/v1. */
    public?: boolean
  }
}
