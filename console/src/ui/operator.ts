import { createContext } from 'preact'
import { useContext } from 'preact/hooks'
import { canWrite, type Area } from '../api'
import type { Session } from '../types'

/** The signed-in operator, for every page below the shell. */
export const OperatorContext = createContext<Session | null>(null)

export function useOperator(): Session | null {
  return useContext(OperatorContext)
}

/** Whether the signed-in operator's role may write here (the server checks again). */
export function useCanWrite(area: Area = 'game'): boolean {
  return canWrite(useOperator()?.role, area)
}

export const ROLE_HINT = 'Your role cannot do this: ask an owner'
