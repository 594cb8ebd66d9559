// Shapes of the admin API's answers, as far as the console reads them.

export interface AdminUser {
  userId: string
  username: string | null
  displayName: string | null
  email: string | null
  isAnonymous: boolean
  isVerified: boolean
  banned: boolean
  bannedAt: string | null
  banReason: string | null
  activeSessions: number
  createdAt: string
  updatedAt: string
}

export interface Board {
  key: string
  name: string
  sortOrder: 'desc' | 'asc'
  updateStrategy: 'best' | 'latest' | 'increment'
  resetSchedule: 'none' | 'daily' | 'weekly' | 'monthly'
  validatedOnly: boolean
  isActive: boolean
  scoreCount: number
  minScore: number | null
  maxScore: number | null
  createdAt: string
  updatedAt: string
}

export interface BoardEntry {
  position: number
  userId: string
  username: string | null
  score: number
  metadata: unknown
  hidden: boolean
  createdAt: string
  updatedAt: string
}

export interface Run {
  runId: string
  userId: string
  leaderboardKey: string | null
  issuedAt: string
  submittedAt: string | null
  outcome: string
  reason: string | null
  score: number | null
  stage: string | null
  durationSeconds: number | null
  rank: number | null
  earned: Record<string, number> | null
  sus: boolean
  susReasons: string[]
  context: Record<string, unknown>
  evidence: { status: string; uploadBefore: string | null; bytes: number | null; uploadedAt: string | null }
  review: { verdict: 'APPROVED' | 'REJECTED' | null; reviewedAt: string | null; scoreRemoved: boolean }
  submissions?: Array<{ code: string; status: number; at: string }>
}

export interface GiftCode {
  id: string
  code: string
  giftData: string
  grants: string[]
  maxRedemptions: number
  redemptionCount: number
  startsAt: string | null
  expiresAt: string | null
  revoked: boolean
  status: string
  createdAt: string
}

export interface CrashGroup {
  id: string
  fingerprint: string
  type: string
  message: string
  status: 'OPEN' | 'RESOLVED' | 'IGNORED'
  resolvedInVersion: string | null
  occurrences: number
  affectedUsers: number
  firstSeen: string
  lastSeen: string
  lastAppVersion: string | null
}

export interface CrashStats {
  sessions: number
  crashedSessions: number
  crashFreeRate: number | null
  versions: Array<{ appVersion: string; sessions: number; crashedSessions: number; crashFreeRate: number | null }>
}

export interface Email {
  id: string
  status: string
  templateSlug: string
  userId: string | null
  recipient: string | null
  subject: string | null
  language: string | null
  attempts: number
  errorReason: string | null
  scheduledAt: string | null
  processedAt: string | null
  createdAt: string
}
