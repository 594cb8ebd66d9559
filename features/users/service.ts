/**
 * The users feature's one entry for other code: accounts (creation, names, lookups, check-auth),
 * the admin side (search, bans, deletion) and a user's data brought in and taken out.
 */
export * from './accounts.js'
export * from './admin-service.js'
export * from './data.js'
export * from './stats.js'
/** The row types other features read users through (the columns stay this feature's: ./tables.ts). */
export type { User, SocialProvider } from './tables.js'
