// One validator per message type, by construction: a message union's validators are a table keyed by
// every `type` of the union, so a type added to the union without its validator (or a validator for a
// type the union lacks) is a compile error, not a message dropped at run time. Used by the host
// (validation.ts) and by both webviews (their hostMessages.ts); plain code, no imports.

/** A message as received: a plain object whose `type` has been looked up in the table. */
export type RawMessage = Record<string, unknown>;

/** For each `type` of the union M: the check that turns a raw message of that type into M's member, or null. */
export type ValidatorsByType<M extends { type: string }> = {
  readonly [K in M['type']]: (raw: RawMessage) => Extract<M, { type: K }> | null;
};

/**
 * The parser of a message union from its table: null for anything that is not a plain object whose
 * `type` is one of the table's own keys (never an inherited one such as `constructor` or `__proto__`),
 * else what that type's validator answers.
 */
export function parseByType<M extends { type: string }>(validators: ValidatorsByType<M>): (raw: unknown) => M | null {
  return (raw) => {
    if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) return null;
    const message = raw as RawMessage;
    const type = message.type;
    if (typeof type !== 'string' || !Object.hasOwn(validators, type)) return null;
    return validators[type as M['type']](message);
  };
}

/**
 * The check that a value is a member of the string union T, from the union written as a record
 * (`{ a: true, b: true }`): a member left out, or one the union lacks, does not compile.
 */
export function isMemberOf<T extends string>(members: Record<T, true>): (v: unknown) => v is T {
  return (v): v is T => typeof v === 'string' && Object.hasOwn(members, v);
}
