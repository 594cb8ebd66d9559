/**
 * The users feature's one entry for other code: accounts (creation, names, lookups, check-auth),
 * the admin side (search, bans, deletion) and a user's data brought in and taken out.
 */
export * from './accounts.js'
export * from './admin-service.js'
export * from './data.js'
export * from './stats.js'
