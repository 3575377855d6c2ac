/** Admin API for documents (Business and Enterprise): upload, list, read, delete. */
import { type Context, Hono } from "hono";
import { adminTarget } from "../../../lib/http/auth.ts";
import {
  addDocument,
  assertDocumentsAllowed,
  declaredType,
  deleteDocument,
  getDocument,
  listDocuments,
  MAX_DOCUMENT_BYTES,
} from "../../../lib/sites/documents.ts";
import { DomainError } from "../../../lib/errors.ts";
import { allowOnly, type AppEnv, readBody } from "../../../lib/http/middleware.ts";
import { DocumentParams, ListParams, parse } from "../../../lib/http/schemas.ts";
import type { Services } from "../../../lib/services.ts";

export function adminDocumentRoutes(s: Services) {
  const app = new Hono<AppEnv>();
  const site = async (c: Context<AppEnv>) =>
    (await adminTarget(c, s.sites, s.operatorTokenHash)).site;
  const missing = (id: string) =>
    new DomainError("NOT_FOUND", `No document with id ${JSON.stringify(id)}.`);

  app.post("/api/admin/sites/:id/documents", async (c) => {
    const target = await site(c);
    // Plan, then type, then size: each refused before the body is read.
    assertDocumentsAllowed(target);
    const contentType = c.req.header("content-type");
    declaredType(contentType);
    const { title } = parse(DocumentParams, { title: c.req.query("title") });
    const bytes = await readBody(c, MAX_DOCUMENT_BYTES);
    const document = await addDocument(s, target, { bytes, contentType, title });
    return c.json({ document }, 201);
  });

  app.get("/api/admin/sites/:id/documents", async (c) => {
    const target = await site(c);
    const { cursor, limit } = parse(ListParams, c.req.query());
    try {
      return c.json(await listDocuments(s, target, { cursor, limit }));
    } catch (err) {
      if (err instanceof DomainError) throw err;
      throw new DomainError("INVALID_PARAMETER", "cursor is not valid.", { param: "cursor" });
    }
  });

  app.get("/api/admin/sites/:id/documents/:docId", async (c) => {
    const target = await site(c);
    const document = await getDocument(s, target.id, c.req.param("docId"));
    if (!document) throw missing(c.req.param("docId"));
    return c.json({ document });
  });

  app.delete("/api/admin/sites/:id/documents/:docId", async (c) => {
    const target = await site(c);
    const id = c.req.param("docId");
    if (!(await deleteDocument(s, target.id, id))) throw missing(id);
    return c.json({ deleted: id });
  });

  allowOnly(app, "/api/admin/sites/:id/documents", ["GET", "POST"]);
  allowOnly(app, "/api/admin/sites/:id/documents/:docId", ["GET", "DELETE"]);
  return app;
}
