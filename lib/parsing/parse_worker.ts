/**
 * The parser worker's entry: started by sandbox.ts as a Worker with no permissions, it
 * answers one request at a time (parse.ts). It announces `{ ready: true }` once loaded.
 */
import { handle, type ParseReply, type ParseRequest } from "./parse.ts";

const scope = globalThis as unknown as {
  onmessage: (e: MessageEvent<ParseRequest>) => void;
  postMessage: (reply: ParseReply) => void;
};
scope.onmessage = async (e) => scope.postMessage(await handle(e.data));
scope.postMessage({ ready: true });
