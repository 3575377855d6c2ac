/** The server's refusals as main.ts wires them: the API's error envelope, and the app untouched. */
import assert from "node:assert/strict";
import { startMain } from "../fixtures/instance.ts";
import { exchange } from "./raw.ts";

const OPERATOR = "op_front_app_test";

Deno.test("front - issue 25's probes against main.ts: refused with the error envelope, and no route runs", async () => {
  const dir = await Deno.makeTempDir();
  const inst = await startMain({ KV_PATH: `${dir}/kv` }, { operatorToken: OPERATOR });
  const port = Number(new URL(inst.url).port);
  const auth = { Authorization: `Bearer ${OPERATOR}` };
  try {
    const list = await (await fetch(`${inst.url}/api/admin/sites`, { headers: auth })).json();
    const id = list.sites[0].id;
    const refusals: [string, number, string][] = [
      [
        `GET /healthz HTTP/1.1\r\nHost: 127.0.0.1:${port}/api/site?key=${inst.publicKey}#\r\n\r\n`,
        400,
        "INVALID_PARAMETER",
      ],
      [`GET /healthz HTTP/1.1\r\nHost: x/dashboard?\r\n\r\n`, 400, "INVALID_PARAMETER"],
      [
        `GET \\api\\admin\\sites HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${OPERATOR}\r\n\r\n`,
        400,
        "INVALID_PARAMETER",
      ],
      [`GET /healthz HTTP/1.1\r\n\r\n`, 400, "INVALID_PARAMETER"],
      [
        `delete /api/admin/sites/${id} HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${OPERATOR}\r\n\r\n`,
        501,
        "NOT_IMPLEMENTED",
      ],
      [`GET /${"a".repeat(9000)} HTTP/1.1\r\nHost: x\r\n\r\n`, 414, "URI_TOO_LONG"],
      [
        `POST /api/summarize?key=${inst.publicKey} HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n2;\nxx\r\n0\r\n\r\n`,
        400,
        "INVALID_PARAMETER",
      ],
    ];
    for (const [raw, status, code] of refusals) {
      const got = await exchange(port, raw);
      const where = JSON.stringify(raw.slice(0, 80));
      assert.equal(got.responses.length, 1, where);
      const [res] = got.responses;
      assert.equal(res.status, status, where);
      assert.equal(res.headers["content-type"], "application/json", where);
      const { error } = JSON.parse(res.body);
      assert.equal(error.code, code, where);
      assert.equal(error.status, status, where);
      assert.equal(error.request_id, res.headers["x-request-id"], where);
      assert.ok(got.closed, where);
    }
    // The lower-case delete deleted nothing.
    const site = await fetch(`${inst.url}/api/admin/sites/${id}`, { headers: auth });
    assert.equal(site.status, 200);
    await site.body?.cancel();
    // A well-formed request with the same Host trick in a valid form is routed by its path.
    const healthz = await exchange(
      port,
      `GET /healthz HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\n\r\n`,
    );
    assert.equal(healthz.responses[0]?.status, 200);
  } finally {
    await inst.stop();
    await Deno.remove(dir, { recursive: true });
  }
});
