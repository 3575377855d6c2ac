/**
 * A bare `Deno.serve` in its own process answering every request with one file's bytes as
 * JSON: the limit bench/front_box.ts holds main.ts's cached answer against. Prints its URL.
 * `deno run -A bench/bare_server.ts <file>`
 */
const bytes = await Deno.readFile(Deno.args[0]);
Deno.serve({
  hostname: "127.0.0.1",
  port: 0,
  onListen: ({ port }) => console.log(`http://127.0.0.1:${port}`),
}, () => new Response(bytes, { headers: { "Content-Type": "application/json" } }));
