/**
 * The AsyncAPI document of GET /v1/stream as a section of the GET /docs page:
 * its servers, channels, operations, messages and payload schemas, rendered on
 * the server from the document itself (no script, no inline style: the page's
 * Content-Security-Policy allows neither), each message and schema in a
 * <details> the reader opens. Prose is the document's Markdown subset:
 * paragraphs, `- ` lists, `code`, **bold**; every text is escaped.
 */
import { componentName, type JsonSchema } from "./json-schema.js";

const ESCAPES: Record<string, string> = { "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" };

/** Text as HTML text or attribute value. */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => ESCAPES[c]);
}

/** An id attribute value from a name (anchors: `stream-message-changes`). */
function anchor(kind: string, name: string): string {
  return `stream-${kind}-${name.replace(/[^A-Za-z0-9_-]/g, "_")}`;
}

/** One line of prose: escaped, then `code` and **bold**. */
function inline(text: string): string {
  return escapeHtml(text)
    .replace(/`([^`]+)`/g, "<code>$1</code>")
    .replace(/\*\*([^*]+)\*\*/g, "<strong>$1</strong>");
}

/** The document's Markdown subset: blocks split by blank lines; a block of `- ` lines is a list. */
export function markdownHtml(text: string): string {
  const out: string[] = [];
  for (const block of text.split(/\n\s*\n/)) {
    const lines = block.split("\n").filter((l) => l.trim() !== "");
    if (lines.length === 0) continue;
    const items = lines[0].startsWith("- ") ? listItems(lines) : null;
    if (items !== null) out.push(`<ul>${items.map((item) => `<li>${inline(item)}</li>`).join("")}</ul>`);
    else out.push(`<p>${inline(lines.join(" "))}</p>`);
  }
  return out.join("\n");
}

/** The items of a `- ` list (a line not starting with `- ` continues the item before it); null when it is not one. */
function listItems(lines: readonly string[]): string[] | null {
  const items: string[] = [];
  for (const line of lines) {
    if (line.startsWith("- ")) items.push(line.slice(2));
    else if (items.length > 0) items[items.length - 1] += ` ${line.trim()}`;
    else return null;
  }
  return items;
}

/** The last segment of a `$ref` (`#/channels/websocket/messages/pool` → `pool`). */
function refName(ref: unknown): string {
  return typeof ref === "string" ? ref.slice(ref.lastIndexOf("/") + 1) : "";
}

const asRecord = (value: unknown): Record<string, JsonSchema> => (value ?? {}) as Record<string, JsonSchema>;
const asText = (value: unknown): string => (typeof value === "string" ? value : "");

/** A schema's type in a few words, with links to the named schemas. */
export function schemaType(schema: JsonSchema): string {
  const name = componentName(schema.$ref);
  if (name !== undefined) return `<a href="#${anchor("schema", name)}">${escapeHtml(name)}</a>`;
  if ("const" in schema) return `<code>${escapeHtml(JSON.stringify(schema.const))}</code>`;
  if (Array.isArray(schema.enum)) return schema.enum.map((v) => `<code>${escapeHtml(JSON.stringify(v))}</code>`).join(" | ");
  const union = (schema.anyOf ?? schema.oneOf) as JsonSchema[] | undefined;
  if (Array.isArray(union)) return union.map(schemaType).join(" | ");
  const type = schema.type;
  if (type === "array") return `array of ${schema.items ? schemaType(schema.items as JsonSchema) : "anything"}`;
  if (Array.isArray(type)) return type.map((t) => escapeHtml(String(t))).join(" | ");
  if (typeof type === "string")
    return typeof schema.format === "string" ? `${escapeHtml(type)} (${escapeHtml(schema.format)})` : escapeHtml(type);
  return "any";
}

/** A schema's properties as a table (name, required, type, description); "" when it has none. */
function propertiesTable(schema: JsonSchema): string {
  const properties = asRecord(schema.properties);
  const names = Object.keys(properties);
  if (names.length === 0) return "";
  const required = new Set(Array.isArray(schema.required) ? (schema.required as string[]) : []);
  const rows = names.map((name) => {
    const property = properties[name];
    return `<tr><td><code>${escapeHtml(name)}</code></td><td>${required.has(name) ? "yes" : "no"}</td><td>${schemaType(property)}</td><td>${inline(asText(property.description))}</td></tr>`;
  });
  return `<table><thead><tr><th>Property</th><th>Required</th><th>Type</th><th>Description</th></tr></thead><tbody>${rows.join("")}</tbody></table>`;
}

function schemaHtml(name: string, schema: JsonSchema): string {
  const description = asText(schema.description);
  return `<details id="${anchor("schema", name)}" class="stream-schema"><summary>${escapeHtml(name)}</summary>
${description === "" ? "" : markdownHtml(description)}
<p>Type: ${schemaType(schema.properties === undefined ? schema : { type: "object" })}</p>
${propertiesTable(schema)}
<details><summary>JSON Schema</summary><pre>${escapeHtml(JSON.stringify(schema, null, 2))}</pre></details>
</details>`;
}

function messageHtml(name: string, message: JsonSchema): string {
  const title = asText(message.title) || name;
  return `<details id="${anchor("message", name)}" class="stream-message"><summary>${escapeHtml(title)}</summary>
${markdownHtml(asText(message.summary))}
${message.description === undefined ? "" : markdownHtml(asText(message.description))}
<p>Content type: <code>${escapeHtml(asText(message.contentType) || "application/json")}</code>. Payload: ${schemaType(asRecord(message).payload ?? {})}</p>
</details>`;
}

function operationHtml(id: string, operation: JsonSchema): string {
  const action = asText(operation.action);
  const channel = refName(asRecord(operation.channel).$ref);
  const messages = ((operation.messages ?? []) as JsonSchema[]).map((m) => {
    const name = refName(m.$ref);
    return `<a href="#${anchor("message", name)}"><code>${escapeHtml(name)}</code></a>`;
  });
  const bindings =
    operation.bindings === undefined
      ? ""
      : `<details><summary>Bindings</summary><pre>${escapeHtml(JSON.stringify(operation.bindings, null, 2))}</pre></details>`;
  return `<div id="${anchor("operation", id)}" class="stream-operation">
<h4><span class="action action-${escapeHtml(action)}">${escapeHtml(action)}</span>${escapeHtml(asText(operation.title) || id)} <small>(<code>${escapeHtml(id)}</code>, channel <a href="#${anchor("channel", channel)}">${escapeHtml(channel)}</a>)</small></h4>
${markdownHtml(asText(operation.summary))}
<p>Messages: ${messages.join(", ")}</p>
${bindings}
</div>`;
}

function channelHtml(id: string, channel: JsonSchema): string {
  const messages = Object.keys(asRecord(channel.messages)).map(
    (name) => `<a href="#${anchor("message", name)}"><code>${escapeHtml(name)}</code></a>`,
  );
  return `<div id="${anchor("channel", id)}" class="stream-channel">
<h4>${escapeHtml(asText(channel.title) || id)} <small>(<code>${escapeHtml(asText(channel.address))}</code>)</small></h4>
${markdownHtml(asText(channel.description))}
<p>Messages: ${messages.join(", ")}</p>
</div>`;
}

function serversTable(servers: Record<string, JsonSchema>): string {
  const rows = Object.entries(servers).map(
    ([id, server]) =>
      `<tr><td><code>${escapeHtml(id)}</code></td><td><code>${escapeHtml(asText(server.protocol))}://${escapeHtml(asText(server.host))}</code></td><td>${inline(asText(server.description))}</td></tr>`,
  );
  return `<table><thead><tr><th>Server</th><th>Address</th><th>Description</th></tr></thead><tbody>${rows.join("")}</tbody></table>`;
}

/** The document as a `<section id="stream">` of the reference page. */
export function renderAsyncApiSection(document: JsonSchema): string {
  const info = asRecord(document.info) as JsonSchema;
  const components = asRecord(document.components);
  const schemes = Object.values(asRecord(components.securitySchemes)).map((s) => `<li>${inline(asText(s.description))}</li>`);
  return `<section id="stream" class="stream-reference">
<h2>${escapeHtml(asText(info.title))} <small>AsyncAPI ${escapeHtml(asText(document.asyncapi))}, version ${escapeHtml(asText(info.version))}</small></h2>
${markdownHtml(asText(info.description))}
<h3>Security</h3>
<ul>${schemes.join("")}</ul>
<h3>Servers</h3>
${serversTable(asRecord(document.servers))}
<h3>Channels</h3>
${Object.entries(asRecord(document.channels))
  .map(([id, channel]) => channelHtml(id, channel))
  .join("\n")}
<h3>Operations</h3>
${Object.entries(asRecord(document.operations))
  .map(([id, operation]) => operationHtml(id, operation))
  .join("\n")}
<h3>Messages</h3>
${Object.entries(asRecord(components.messages))
  .map(([name, message]) => messageHtml(name, message))
  .join("\n")}
<h3>Schemas</h3>
${Object.entries(asRecord(components.schemas))
  .map(([name, schema]) => schemaHtml(name, schema))
  .join("\n")}
</section>`;
}
