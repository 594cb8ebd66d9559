/** Values the operation examples of every feature share, so one player reads the same everywhere. */
export const EX = {
  userId: '8f14e45f-ceea-4e7a-9c1b-2a5d3b6c7e80',
  otherUserId: '2c9a1f3e-5b7d-4e8f-a1c2-3d4e5f607182',
  runId: '5e2d7c1a-9b8f-4a6e-8d3c-1f0e2b4a6c98',
  groupId: 'a7c3e9f1-2b4d-4c6e-8f0a-1b3d5f7a9c2e',
  emailId: 'c1d2e3f4-a5b6-4c7d-8e9f-0a1b2c3d4e5f',
  newsId: 'd4c3b2a1-f6e5-4d7c-9b8a-7f6e5d4c3b2a',
  id: '6b1e3d5f-7a9c-4b2d-8e4f-0a2c4e6a8b0d',
  accessToken: 'k3J9mQ2xV7pL1sN8rT4wY6zB0cF5hD2gA9eU3iO7uM1',
  anonymousToken: 'Zq4Xw8Rt2Yp6Ls0Kd3Jf7Hg1Mn5Bv9Ca',
  now: '2026-11-22T10:30:00.000Z',
  earlier: '2026-11-20T08:15:00.000Z',
  later: '2026-12-22T10:30:00.000Z',
} as const

/** A page of an admin list: its items and the cursor of the next page (`null` at the end). */
export const page = <T>(items: T[], nextCursor: string | null = null) => ({ items, nextCursor })
