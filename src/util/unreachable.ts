/**
 * The default of a switch over a closed union, once every member has its case: the compiler proves it is never
 * reached (`value` is `never` there, so a new member without a case fails the build); a value outside the type
 * that arrives anyway fails loudly, naming it.
 */
export function unreachable(value: never, what: string): never {
  throw new Error(`unexpected ${what}: ${JSON.stringify(value)}`);
}
