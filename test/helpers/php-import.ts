import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { main } from '../../scripts/import-php/index.js'

export interface ImportRun {
  status: number
  stdout: string
  stderr: string
  /** Per table: [rows, copied, already, refused]. */
  counts: Record<string, [number, number, number, number]>
}

/** The import, in this process (the command's own `main`), with its output kept for the assertions. */
export async function runImport(args: string[], dbEnv: Record<string, string>): Promise<ImportRun> {
  let stdout = ''
  let stderr = ''
  const io = { out: { write: (text: string) => (stdout += text) }, err: { write: (text: string) => (stderr += text) } }
  const env = { API_KEY: 'import-test-api-key-0123', LOG_LEVEL: 'silent', ...dbEnv }
  let status: number
  try {
    status = await main(args, env, io, join(tmpdir(), 'no-such-outpost.env'))
  } catch (error) {
    status = 1
    stderr += `Import failed: ${(error as Error).message}\n`
  }
  const counts: ImportRun['counts'] = {}
  for (const line of stdout.split('\n')) {
    const m = /^([a-z_]+)\s+(\d+)\s+(\d+)\s+(\d+)\s+(\d+)$/.exec(line.trim())
    if (m) counts[m[1]!] = [Number(m[2]), Number(m[3]), Number(m[4]), Number(m[5])]
  }
  return { status, stdout, stderr, counts }
}
