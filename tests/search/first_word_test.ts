import assert from "node:assert/strict";
import { firstWord, words } from "../../lib/search/engine/analysis/tokens.ts";

Deno.test("first word - is the word a text's words begin with, in any script, and none for no words", () => {
  const texts: [string, string][] = [
    ["Setting up the cache", "en"],
    ["  -- The CACHES setting", "en"],
    ["acme.core.store: stores", "en"],
    ["l'été à Paris", "fr"],
    ["キャッシュの設定", "ja"],
    ["缓存设置 and more", "zh"],
    ["Über die Einstellungen", "de"],
    ["«— …", "en"],
    ["", "en"],
  ];
  for (const [text, lang] of texts) {
    const first = words(text, lang).next();
    assert.equal(firstWord(text, lang), first.done ? undefined : first.value, text);
  }
  assert.equal(firstWord("Setting up the cache", "en"), "Setting");
  assert.equal(firstWord("«— …", "en"), undefined);
});
