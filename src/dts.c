/* TypeScript declarations of a sandbox's tools, made from their JSON Schemas: what
 * model-written code needs to call them (types, properties, required, items, enum,
 * const, anyOf/oneOf; anything else is `unknown`), as the files of /tools. */
#include "dts.h"

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "json.h"
#include "tools.h"

#define TS_MAX_DEPTH 12

/* Every piece is appended without a check: the buffer remembers a failure, and
 * capsa__dts_write checks once, at the end. */
static void ts_put(capsa__buf *b, const char *s)
{
    capsa__buf_append_str(b, &capsa__default_allocator, s);
}

static void ts_indent(capsa__buf *b, int n)
{
    for (int i = 0; i < n; i++)
        ts_put(b, "  ");
}

/* A doc comment of text (its end marker defused), at the given indent. */
static void ts_doc(capsa__buf *b, const char *text, int indent)
{
    if (!text || !*text)
        return;
    ts_indent(b, indent);
    ts_put(b, "/** ");
    for (const char *p = text; *p && !b->failed; p++) {
        if (p[0] == '*' && p[1] == '/') {
            ts_put(b, "*\\");
        } else if (*p == '\n') {
            ts_put(b, "\n");
            ts_indent(b, indent);
            ts_put(b, " * ");
        } else {
            capsa__buf_append(b, &capsa__default_allocator, p, 1);
        }
    }
    ts_put(b, " */\n");
}

static int ts_is_ident(const char *s)
{
    if (!*s || (*s >= '0' && *s <= '9'))
        return 0;
    for (; *s; s++) {
        if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') || (*s >= '0' && *s <= '9') ||
              *s == '_' || *s == '$'))
            return 0;
    }
    return 1;
}

static void ts_key(capsa__buf *b, const char *key)
{
    if (ts_is_ident(key))
        ts_put(b, key);
    else
        capsa__json_quote(b, &capsa__default_allocator, key, strlen(key));
}

/* A JSON value as a TypeScript literal type (JSON's syntax is TypeScript's). */
static void ts_literal(capsa__buf *b, const json_t *v)
{
    char *text = json_dumps(v, JSON_COMPACT | JSON_ENCODE_ANY);
    if (text)
        ts_put(b, text);
    else
        capsa__buf_fail(b); /* jansson ran out of memory */
    free(text);
}

static void ts_type(capsa__buf *b, const json_t *s, int indent, int depth);

static void ts_union(capsa__buf *b, const json_t *list, int indent, int depth)
{
    size_t i;
    const json_t *v;
    if (!json_array_size(list))
        ts_put(b, "never");
    json_array_foreach(list, i, v) {
        if (i)
            ts_put(b, " | ");
        ts_type(b, v, indent, depth + 1);
    }
}

static void ts_object(capsa__buf *b, const json_t *s, int indent, int depth)
{
    const json_t *props = json_object_get(s, "properties");
    const json_t *req = json_object_get(s, "required");
    const json_t *extra = json_object_get(s, "additionalProperties");
    if (!json_object_size(props)) {
        if (json_is_object(extra)) {
            ts_put(b, "Record<string, ");
            ts_type(b, extra, indent, depth + 1);
            ts_put(b, ">");
        } else {
            ts_put(b, "Record<string, unknown>");
        }
        return;
    }
    ts_put(b, "{\n");
    const char *key;
    const json_t *p;
    json_object_foreach((json_t *)props, key, p) {
        int required = 0;
        size_t i;
        const json_t *r;
        json_array_foreach(req, i, r) {
            if (json_is_string(r) && strcmp(json_string_value(r), key) == 0)
                required = 1;
        }
        ts_doc(b, json_string_value(json_object_get(p, "description")), indent + 1);
        ts_indent(b, indent + 1);
        ts_key(b, key);
        ts_put(b, required ? ": " : "?: ");
        ts_type(b, p, indent + 1, depth + 1);
        ts_put(b, ";\n");
    }
    if (json_is_object(extra) || json_is_true(extra)) {
        /* The other members' type is not given: a property above may not fit it. */
        ts_indent(b, indent + 1);
        ts_put(b, "[key: string]: unknown;\n");
    }
    ts_indent(b, indent);
    ts_put(b, "}");
}

static void ts_simple(capsa__buf *b, const char *type, const json_t *s, int indent, int depth)
{
    if (strcmp(type, "string") == 0) {
        ts_put(b, "string");
    } else if (strcmp(type, "number") == 0 || strcmp(type, "integer") == 0) {
        ts_put(b, "number");
    } else if (strcmp(type, "boolean") == 0) {
        ts_put(b, "boolean");
    } else if (strcmp(type, "null") == 0) {
        ts_put(b, "null");
    } else if (strcmp(type, "array") == 0) {
        const json_t *items = json_object_get(s, "items");
        ts_put(b, "Array<");
        if (json_is_object(items))
            ts_type(b, items, indent, depth + 1);
        else
            ts_put(b, "unknown");
        ts_put(b, ">");
    } else if (strcmp(type, "object") == 0) {
        ts_object(b, s, indent, depth);
    } else {
        ts_put(b, "unknown");
    }
}

/* The TypeScript type of JSON Schema s (what model-written code needs: types,
 * properties, required, items, enum, const, anyOf/oneOf; the rest is unknown). */
static void ts_type(capsa__buf *b, const json_t *s, int indent, int depth)
{
    if (depth > TS_MAX_DEPTH || !json_is_object(s)) {
        ts_put(b, "unknown");
        return;
    }
    const json_t *v;
    if ((v = json_object_get(s, "const"))) {
        ts_literal(b, v);
        return;
    }
    if ((v = json_object_get(s, "enum")) && json_is_array(v)) {
        size_t i;
        const json_t *e;
        if (!json_array_size(v))
            ts_put(b, "never");
        json_array_foreach(v, i, e) {
            if (i)
                ts_put(b, " | ");
            ts_literal(b, e);
        }
        return;
    }
    if ((v = json_object_get(s, "anyOf")) || (v = json_object_get(s, "oneOf"))) {
        ts_union(b, v, indent, depth);
        return;
    }
    const json_t *type = json_object_get(s, "type");
    if (json_is_string(type)) {
        ts_simple(b, json_string_value(type), s, indent, depth);
    } else if (json_is_array(type)) {
        size_t i;
        const json_t *e;
        if (!json_array_size(type))
            ts_put(b, "unknown");
        json_array_foreach(type, i, e) {
            if (i)
                ts_put(b, " | ");
            ts_simple(b, json_is_string(e) ? json_string_value(e) : "", s, indent, depth);
        }
    } else if (json_object_get(s, "properties")) {
        ts_object(b, s, indent, depth);
    } else {
        ts_put(b, "unknown");
    }
}

/* "math_add" -> "MathAddArgs". */
static void ts_args_name(capsa__buf *b, const capsa__dts_tool *tl)
{
    int up = 1;
    for (const char *p = tl->flat; *p; p++) {
        if (*p == '_') {
            up = 1;
            continue;
        }
        char ch = up && *p >= 'a' && *p <= 'z' ? (char)(*p - 'a' + 'A') : *p;
        up = 0;
        capsa__buf_append(b, &capsa__default_allocator, &ch, 1);
    }
    ts_put(b, "Args");
}

/* The declarations of one tool: its arguments' interface and its function. */
static void ts_tool(capsa__buf *b, const capsa__dts_tool *tl, const char *prefix)
{
    json_t *schema = json_loads(tl->schema, 0, NULL);
    int optional = !json_array_size(json_object_get(schema, "required"));
    ts_doc(b, json_string_value(json_object_get(schema, "description")), 0);
    ts_put(b, prefix);
    ts_put(b, "type ");
    ts_args_name(b, tl);
    ts_put(b, " = ");
    ts_type(b, schema, 0, 0);
    ts_put(b, ";\n");
    json_decref(schema);
    ts_doc(b, tl->description, 0);
    ts_put(b, prefix);
    ts_put(b, "function ");
    ts_put(b, tl->flat);
    ts_put(b, optional ? "(args?: " : "(args: ");
    ts_args_name(b, tl);
    ts_put(b, "): Promise<any>;\n");
}

/* The members of the namespace whose tools' names start with the segments
 * prefix[0..plen) (split on . / :), nested. */
static void ts_namespace(capsa__buf *b, const capsa__dts_tool *tools, size_t n, const char *prefix,
                         size_t plen, int indent)
{
    for (size_t i = 0; i < n && !b->failed; i++) {
        const char *name = tools[i].name;
        if (plen && (strncmp(name, prefix, plen) != 0 || !capsa__name_sep(name[plen])))
            continue;
        const char *seg = plen ? name + plen + 1 : name;
        size_t slen = strcspn(seg, "./:");
        size_t full = (size_t)(seg - name) + slen;
        /* Only the first tool of each segment writes it. */
        int seen = 0;
        for (size_t k = 0; k < i && !seen; k++) {
            const char *other = tools[k].name;
            seen = strncmp(other, name, full) == 0 &&
                   (other[full] == '\0' || capsa__name_sep(other[full]));
        }
        if (seen || (!plen && (strncmp(seg, "list", slen) == 0 || strncmp(seg, "describe", slen) == 0 ||
                               strncmp(seg, "call", slen) == 0) &&
                                  (slen == 4 || slen == 8)))
            continue;
        const capsa__dts_tool *exact = NULL;
        int deeper = 0;
        for (size_t k = 0; k < n; k++) {
            const char *other = tools[k].name;
            if (strncmp(other, name, full) == 0 && other[full] == '\0')
                exact = &tools[k];
            else if (strncmp(other, name, full) == 0 && capsa__name_sep(other[full]))
                deeper = 1;
        }
        char key[CAPSA__TOOL_NAME_MAX + 1];
        snprintf(key, sizeof(key), "%.*s", (int)slen, seg);
        ts_indent(b, indent);
        ts_key(b, key);
        ts_put(b, ": ");
        if (exact) {
            ts_put(b, "typeof ");
            ts_put(b, exact->flat);
        }
        if (deeper) {
            if (exact)
                ts_put(b, " & ");
            ts_put(b, "{\n");
            ts_namespace(b, tools, n, name, full, indent + 1);
            ts_indent(b, indent);
            ts_put(b, "}");
        }
        ts_put(b, ";\n");
    }
}

static const char ts_banner[] =
    "// Generated by capsa from the tools' JSON Schemas: what a script may call.\n"
    "// Call a tool as `await tools.<namespace>.<action>(args)` or by its flat name\n"
    "// (`await provider_action(args)`). A failed call rejects with a ToolError whose\n"
    "// `code` says why (\"permission_denied\", \"timeout\", \"invalid_arguments\", ...).\n\n";

int capsa__dts_write(const capsa__dts_tool *tools, size_t n, const capsa__dts_tool *one,
                     capsa__buf *out)
{
    capsa__buf b = { 0 };
    ts_put(&b, ts_banner);
    if (one) {
        ts_tool(&b, one, "export declare ");
    } else {
        ts_put(&b, "interface ToolError extends Error {\n  code: string;\n  tool: string;\n}\n\n");
        for (size_t i = 0; i < n && !b.failed; i++) {
            ts_tool(&b, &tools[i], "declare ");
            ts_put(&b, "\n");
        }
        ts_put(&b, "declare const tools: {\n"
                   "  /** Every tool: its name and description. */\n"
                   "  list(): { name: string; description: string }[];\n"
                   "  /** A tool's name, flat name, description, JSON Schema and declaration file. */\n"
                   "  describe(name: string): { name: string; flat: string; description: string; "
                   "parameters: unknown; types: string } | undefined;\n"
                   "  /** Calls a tool by its name. */\n"
                   "  call(name: string, args?: object): Promise<any>;\n");
        ts_namespace(&b, tools, n, "", 0, 1);
        ts_put(&b, "};\n");
    }
    if (b.failed) {
        capsa__buf_free(&b, &capsa__default_allocator);
        return CAPSA_ENOMEM;
    }
    capsa__buf_free(out, &capsa__default_allocator);
    *out = b;
    return CAPSA_OK;
}
