// The app routes of crash reporting: what the feature guarantees is in index.ts.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { errors } from '../../platform/schemas/common.js'
import {
  CrashReportBodySchema,
  CrashReportCreatedSchema,
  CrashSessionBodySchema,
  CrashSessionResponseSchema,
} from './schemas.js'
import { createReport, registerSession } from './ingest.js'

const tags = ['Crash Reporting']
/** The one body limit of a report; the house default (1 MiB) would let more through. */
export const REPORT_BODY_LIMIT = 256 * 1024

const crashReporting: FastifyPluginAsyncTypebox = async (app) => {
  const crashReported = app.metrics.counter('outpost_crash_reports_total')
  app.post(
    '/crash-reports/session',
    {
      config: { stripNul: true },
      schema: {
        tags,
        summary: 'Register one app run (201 new, 200 already registered), the base of the crash-free rate',
        body: CrashSessionBodySchema,
        response: {
          200: CrashSessionResponseSchema,
          201: CrashSessionResponseSchema,
          ...errors(400, 401, 413, 415, 429),
        },
      },
    },
    async (request, reply) => {
      const created = await registerSession(app.db, request.body, app.clock.now())
      return reply.code(created ? 201 : 200).send({ status: 'ok' as const })
    },
  )

  app.post(
    '/crash-reports/create',
    {
      bodyLimit: REPORT_BODY_LIMIT,
      // Never lose a report for its text (contract §6.3): a NUL is taken out, not refused.
      config: { stripNul: true },
      schema: {
        tags,
        summary: 'File a crash report (lenient: only type is required; over-long fields are truncated)',
        body: CrashReportBodySchema,
        response: { 201: CrashReportCreatedSchema, ...errors(400, 401, 413, 415, 429) },
      },
    },
    async (request, reply) => {
      const created = await createReport(app.db, request.body, app.clock.now(), { events: app.events })
      crashReported(request.body.type)
      return reply.code(201).send(created)
    },
  )
}

export default crashReporting
