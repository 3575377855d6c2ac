/** Pages that record changes, told by their title and headings (analysis/change_record.ts). */
import assert from "node:assert/strict";
import { isChangeRecord, namesVersion } from "../../lib/search/engine/analysis/change_record.ts";

Deno.test("change record - versions and dates standing as words; section numbers and names are not", () => {
  for (const v of ["3.1.25", "Version 2.0.1 (2021-05-18)", "Release 15.4", "v1.2", "Frob 4.2rc1"]) {
    assert.ok(namesVersion(v), v);
  }
  for (const n of ["9.8. Date Functions", "E.1.2 Migration", "HTTP/1.1 pipelining", "Settings"]) {
    assert.ok(!namesVersion(n), n);
  }
  assert.ok(!namesVersion("FROB_FAST (since Frob 2.6)", 2), "a reference entry dated late");
});

Deno.test("change record - a version in the title, or in a quarter of many headings", () => {
  assert.ok(isChangeRecord("What's new in Frob 3.0", ["Overview", "Upgrading"]));
  assert.ok(isChangeRecord("Changes", ["Version 2.1", "Version 2.0", "1.9.3", "Thanks", "Old"]));
  assert.ok(!isChangeRecord("Changes", ["Version 2.1", "Overview", "Notes"]), "too few headings");
  assert.ok(!isChangeRecord("Settings", ["1. Where", "2. When", "3. Why", "3.1 How"]));
  const dated = ["FROB_A (since Frob 2.0)", "FROB_B (since Frob 2.4)", "FROB_C (since 3.1)"];
  assert.ok(!isChangeRecord("frob(2)", dated), "a reference whose entries say when they came");
});
