// The app routes of crash reporting: what the feature guarantees is in index.ts.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import {
  CrashReportBodySchema,
  CrashReportCreatedSchema,
  CrashSessionBodySchema,
  CrashSessionResponseSchema,
} from './schemas.js'
import { createReport, registerSession } from './ingest.js'
import { routesOf } from '../../platform/openapi/routes.js'
import { manifest } from './manifest.js'
import { EX } from '../../platform/openapi/examples.js'
import * as examples from './docs.js'

/** The one body limit of a report; the house default (1 MiB) would let more through. */
export const REPORT_BODY_LIMIT = 256 * 1024

const crashReporting: FastifyPluginAsyncTypebox = async (app) => {
  const route = routesOf(manifest)
  const crashReported = app.metrics.counter('outpost_crash_reports_total')
  app.post(
    '/crash-reports/session',
    {
      config: { stripNul: true },
      schema: route.app({
        summary: 'Register one app run (201 new, 200 already registered), the base of the crash-free rate',
        body: CrashSessionBodySchema,
        response: {
          200: CrashSessionResponseSchema,
          201: CrashSessionResponseSchema,
        },
        errors: [413, 415],
        docs: {
          description:
            'Registers one app run, the base of the crash-free session rate: 201 `{ status: "ok" }` for a new `sessionId`, 200 ' +
            'for one already registered (a report for an unregistered session registers it as crashed). `sessionId` over 128 ' +
            `characters is shortened. ${examples.LENIENT}`,
          request: {
            sessionId: 'b5f0c2de-0d1e-4f5a-9c3b-7e6d5c4b3a21',
            appVersion: '1.4.2',
            platform: 'Android',
            userId: EX.userId,
          },
          response: { status: 'ok' },
        },
      }),
    },
    async (request, reply) => {
      const created = await registerSession(request.db, request.body, app.clock.now())
      return reply.code(created ? 201 : 200).send({ status: 'ok' as const })
    },
  )

  app.post(
    '/crash-reports/create',
    {
      bodyLimit: REPORT_BODY_LIMIT,
      // Never lose a report for its text (contract §6.3): a NUL is taken out, not refused.
      config: { stripNul: true },
      schema: route.app({
        summary: 'File a crash report (lenient: only type is required; over-long fields are truncated)',
        body: CrashReportBodySchema,
        response: { 201: CrashReportCreatedSchema },
        errors: [413, 415],
        docs: {
          description:
            'Files a crash report (compat). Only `type` (`CRASH` | `NON_FATAL` | `ANR`) is required; a missing or wrong `type` or ' +
            'a wrongly typed field is 400. An empty `fingerprint` is derived from type, message and the top stack frames; an ' +
            'empty `sessionId` files the report under a generated session; breadcrumb timestamps are kept as given; a ' +
            'non-string `customKeys` value is kept as its JSON text. Over-long fields are truncated, not refused (`message` 8,192 ' +
            'and `stackTrace` 65,536 characters, `customKeys` 64 keys, the last 100 breadcrumbs), and the answer says ' +
            '`truncated: true`. Reports group by fingerprint; a group resolved in version V turns `REGRESSED` when a report ' +
            `comes from a newer version (compared numerically: 1.10 > 1.9). ${examples.LENIENT}`,
          request: {
            type: 'CRASH',
            message: 'Object reference not set to an instance of an object',
            stackTrace: 'at PlayerController.Update () [0x0001a] in PlayerController.cs:42',
            fingerprint: '',
            appVersion: '1.4.2',
            sdkVersion: '2.1.0',
            platform: 'Android',
            os: 'Android 14',
            deviceModel: 'Pixel 8',
            sessionId: 'b5f0c2de-0d1e-4f5a-9c3b-7e6d5c4b3a21',
            userId: EX.userId,
            breadcrumbs: [{ timestamp: '2026-11-22T10:29:58Z', type: 'navigation', message: 'Level 3 loaded' }],
            customKeys: { level: '3' },
          },
          response: { id: EX.id, groupId: EX.groupId, createdAt: EX.now, truncated: false },
        },
      }),
    },
    async (request, reply) => {
      const created = await createReport(request.db, request.body, app.clock.now(), { events: app.events })
      crashReported(request.body.type, request.game.id)
      return reply.code(201).send(created)
    },
  )
}

export default crashReporting
