/** Ids of levers: given ones are kept, missing ones made (a prefix and 12 base62 letters). */
const ALPHABET = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";
/** What a given id may look like: short, and safe in a URL and in HTML. */
export const ID_PATTERN = /^[A-Za-z0-9_-]{1,40}$/;

/** A new random id such as "syn_4fT0aQ9zLm2c". */
export function newId(prefix: string): string {
  const bytes = crypto.getRandomValues(new Uint8Array(12));
  return prefix + "_" + [...bytes].map((b) => ALPHABET[b % 62]).join("");
}
