/** JSON bodies parsed in slices give exactly what JSON.parse gives, and refuse what it refuses. */
import assert from "node:assert/strict";
import { DomainError } from "../../lib/errors.ts";
import { parseJsonBody } from "../../lib/http/json.ts";

const enc = (s: string) => new TextEncoder().encode(s);
const big = "x".repeat(1_100_000); // past the size where member arrays are parsed per element

Deno.test("json body - large bodies parse element by element to the same value as JSON.parse", async () => {
  const cases = [
    `{"pages":[{"url":"/a","body":"${big}"},{"url":"/b,]\\"[","n":[1,[2,{"c":3}]]}],"x":1}`,
    `{ "a" : "s" , "pages" : [ ] , "pad":"${big}" }`,
    `{"pages":[1, 2 ,3],"pages":{"k":"${big}"}}`,
    `{"pages":[1],"other":["${big}", null, true, -1.5e3]}`,
    `[{"pages":["${big}"]}]`,
  ];
  for (const text of cases) {
    assert.deepEqual(await parseJsonBody(enc(text)), JSON.parse(text));
  }
});

Deno.test("json body - what JSON.parse refuses is INVALID_JSON, large or small, and deep nesting too", async () => {
  const bad = [
    `{"pages":[1,],"pad":"${big}"}`,
    `{"pages":[{}{}],"pad":"${big}"}`,
    `{"pages":[1 2],"pad":"${big}"}`,
    `{"pages":[1],"pad":"${big}"`,
    `{"a":1,}`,
    "[".repeat(65) + "]".repeat(65),
  ];
  for (const text of bad) {
    await assert.rejects(
      () => parseJsonBody(enc(text)),
      (e) => e instanceof DomainError && e.code === "INVALID_JSON",
      text.slice(0, 30),
    );
  }
  assert.deepEqual(
    await parseJsonBody(enc("[".repeat(64) + "]".repeat(64))),
    JSON.parse("[".repeat(64) + "]".repeat(64)),
  );
});
