// Trigger expressions (placeholder until the compiler lands: names split on and/or).
export type CompiledTrigger = { ok: true; anyOf: string[] } | { ok: false; message: string; position: number };

export function compileTriggerExpression(source: string): CompiledTrigger {
  return { ok: true, anyOf: source.split(/\s+(?:and|or)\s+/i).map((name) => name.trim()) };
}
