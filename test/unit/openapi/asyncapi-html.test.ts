/** The AsyncAPI section of GET /docs (src/openapi/asyncapi-html.ts): prose and names escaped, the Markdown subset, types. */
import { describe, expect, it } from "vitest";
import { escapeHtml, markdownHtml, renderAsyncApiSection, schemaType } from "../../../src/openapi/asyncapi-html.js";

describe("the AsyncAPI section of the reference page", () => {
  it("escapes every text it prints", () => {
    expect(escapeHtml(`<script>alert("x") & 'y'</script>`)).toBe("&lt;script&gt;alert(&quot;x&quot;) &amp; &#39;y&#39;&lt;/script&gt;");
    const html = renderAsyncApiSection({
      asyncapi: "3.0.0",
      info: { title: "<b>t</b>", version: "1", description: "<img src=x onerror=alert(1)>" },
      channels: { "c<1>": { title: "<i>", address: "/x", description: "`<code>`", messages: { 'm"1': {} } } },
      operations: {},
      components: { messages: {}, schemas: { S: { type: "object", description: "<script>", properties: { "<p>": { type: "string" } } } } },
    });
    for (const raw of ["<script", "<img", "<b>", "<i>", "<code><code>", 'm"1']) expect(html).not.toContain(raw);
    expect(html).toContain("<td><code>&lt;p&gt;</code></td>");
    expect(html).toContain("&lt;img src=x onerror=alert(1)&gt;");
    expect(html).toContain('id="stream-channel-c_1_"');
    expect(html).toContain("<code>&lt;code&gt;</code>");
  });

  it("renders paragraphs, `- ` lists (with continued lines), `code` and **bold**", () => {
    expect(markdownHtml("One `a` **b**\nline.\n\n- x\n  more\n- `y`")).toBe(
      "<p>One <code>a</code> <strong>b</strong> line.</p>\n<ul><li>x more</li><li><code>y</code></li></ul>",
    );
    expect(markdownHtml("")).toBe("");
  });

  it("names a schema's type with links to named schemas", () => {
    expect(schemaType({ $ref: "#/components/schemas/PoolEvent" })).toBe('<a href="#stream-schema-PoolEvent">PoolEvent</a>');
    expect(schemaType({ anyOf: [{ type: "null" }, { const: 1 }] })).toBe("null | <code>1</code>");
    expect(schemaType({ type: "array", items: { type: "string", format: "uri" } })).toBe("array of string (uri)");
    expect(schemaType({ enum: ["a", "b"] })).toBe("<code>&quot;a&quot;</code> | <code>&quot;b&quot;</code>");
    expect(schemaType({})).toBe("any");
  });
});
