/**
 * An island on a server-rendered page: the component's markup, and its props as JSON in an inert
 * <script type="application/json">, escaped so that no value can close the tag. islands/boot.ts
 * finds each `[data-island]`, looks its name up in the same registry and hydrates it.
 */
import type { ComponentProps, ComponentType } from "preact";
import { type IslandName, ISLANDS } from "../islands/registry.ts";

/** JSON that is safe inside <script>: `<`, `>`, `&` and the JS line separators are escaped. */
export function scriptJson(value: unknown): string {
  return JSON.stringify(value).replace(
    /[<>&\u2028\u2029]/g,
    (ch) => "\\u" + ch.charCodeAt(0).toString(16).padStart(4, "0"),
  );
}

/** Renders island `name` with `props`, marked for hydration. */
export function Island<N extends IslandName>(
  { name, props }: { name: N; props: ComponentProps<typeof ISLANDS[N]> },
) {
  const C = ISLANDS[name] as unknown as ComponentType<Record<string, unknown>>;
  return (
    <div data-island={name} class="island">
      <script type="application/json" dangerouslySetInnerHTML={{ __html: scriptJson(props) }} />
      <div data-island-root>
        <C {...props as Record<string, unknown>} />
      </div>
    </div>
  );
}
