/* TypeScript declarations of a sandbox's tools, made from the JSON Schemas their
 * calls are validated against (schema.c): the files of /tools, what model-written
 * code needs to call them. Every keyword the validator asserts about a value's
 * shape has a type: type, enum and const (literal unions), anyOf/oneOf (unions),
 * allOf (intersections), $ref (a named type for $defs/definitions, else inlined),
 * prefixItems and draft-07 tuple items (tuples), items, properties, required,
 * additionalProperties and patternProperties (index signatures). What a type
 * cannot say (minimum, pattern, ...) goes into the JSDoc with the description;
 * not, if/then/else, contains and the like leave the type as it is. */
#include "dts.h"

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "json.h"
#include "tools.h"

#define TS_MAX_DEPTH 12
#define TS_NAME_MAX (CAPSA__TOOL_NAME_MAX + 1)   /* a PascalCase name */
#define TS_ARGS_MAX (TS_NAME_MAX + 16)           /* with "Args" or "Result" and a number */

/* What the types of one tool are made in: its schema's root (for $ref) and the
 * name of the type made (its arguments' or its result's), which prefixes its
 * named $defs types. */
typedef struct ts_ctx {
    const json_t *root;
    const char *args_name;
} ts_ctx;

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

/* A doc comment of text[0..len) (its end marker defused), at the given indent. */
static void ts_doc_text(capsa__buf *b, const char *text, size_t len, int indent)
{
    if (!text || !len)
        return;
    ts_indent(b, indent);
    ts_put(b, "/** ");
    for (size_t i = 0; i < len && !b->failed; i++) {
        if (text[i] == '*' && i + 1 < len && text[i + 1] == '/') {
            ts_put(b, "*\\");
        } else if (text[i] == '\n') {
            ts_put(b, "\n");
            ts_indent(b, indent);
            ts_put(b, " * ");
        } else {
            capsa__buf_append(b, &capsa__default_allocator, text + i, 1);
        }
    }
    ts_put(b, " */\n");
}

/* Appends v as compact JSON, cut after 200 bytes with "...". */
static void ts_json_head(capsa__buf *b, const json_t *v)
{
    char head[201];
    int cut = 0;
    long n = capsa__json_head(v, head, sizeof(head), &cut);
    if (n < 0) {
        capsa__buf_fail(b); /* jansson ran out of memory */
        return;
    }
    capsa__buf_append(b, &capsa__default_allocator, head, (size_t)n);
    if (cut)
        ts_put(b, "...");
}

/* The doc comment of schema s: its description, then a tag for each rule the
 * type does not show ("@minimum 1", "@pattern ^[a-z]+$", "@default 10"). */
static void ts_doc(capsa__buf *b, const json_t *s, int indent)
{
    static const char *const tags[] = {
        "minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf",
        "minLength", "maxLength", "pattern", "format", "minItems", "maxItems",
        "uniqueItems", "minProperties", "maxProperties", "default", "deprecated", NULL,
    };
    if (!json_is_object(s))
        return;
    capsa__buf text = { 0 };
    const json_t *d = json_object_get(s, "description");
    if (json_is_string(d))
        capsa__buf_append(&text, &capsa__default_allocator, json_string_value(d),
                          json_string_length(d));
    for (int i = 0; tags[i]; i++) {
        const json_t *v = json_object_get(s, tags[i]);
        if (!v || (strcmp(tags[i], "exclusiveMinimum") == 0 && !json_is_number(v)) ||
            (strcmp(tags[i], "exclusiveMaximum") == 0 && !json_is_number(v)))
            continue; /* draft-04's boolean forms say nothing by themselves */
        if (text.len)
            ts_put(&text, "\n");
        ts_put(&text, "@");
        ts_put(&text, tags[i]);
        ts_put(&text, " ");
        if (json_is_string(v))
            capsa__buf_append(&text, &capsa__default_allocator, json_string_value(v),
                              json_string_length(v) > 200 ? 200 : json_string_length(v));
        else
            ts_json_head(&text, v);
    }
    if (text.failed)
        capsa__buf_fail(b);
    else
        ts_doc_text(b, text.data, text.len, indent);
    capsa__buf_free(&text, &capsa__default_allocator);
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
    char *text = capsa__json_dumps(v, JSON_COMPACT | JSON_ENCODE_ANY);
    if (text)
        ts_put(b, text);
    else
        capsa__buf_fail(b); /* jansson ran out of memory */
    free(text);
}

static void ts_type(capsa__buf *b, const ts_ctx *T, const json_t *s, int indent, int depth);

/* The union of the members of list (schemas): never when empty, unknown when a
 * member is unknown (it takes in all the others). */
static void ts_union(capsa__buf *b, const ts_ctx *T, const json_t *list, int indent, int depth)
{
    size_t i, start = b->len;
    const json_t *v;
    if (!json_array_size(list))
        ts_put(b, "never");
    json_array_foreach(list, i, v) {
        if (i)
            ts_put(b, " | ");
        size_t at = b->len;
        ts_type(b, T, v, indent, depth + 1);
        if (!b->failed && strcmp(b->data + at, "unknown") == 0) {
            capsa__buf_truncate(b, start);
            ts_put(b, "unknown");
            return;
        }
    }
}

/* The type of the values an object's members other than its properties may have:
 * additionalProperties and patternProperties, as a union; NULL in *open when
 * anything may be there, 0 when nothing may (additionalProperties false and no
 * pattern). Returns the number of schemas put (0: unknown or never). */
static int ts_index_type(capsa__buf *b, const ts_ctx *T, const json_t *s, int indent, int depth,
                         int *open)
{
    const json_t *extra = json_object_get(s, "additionalProperties");
    const json_t *pats = json_object_get(s, "patternProperties");
    *open = !extra || json_is_true(extra);
    if (*open)
        return 0;
    int n = 0;
    const char *key;
    const json_t *p;
    json_object_foreach((json_t *)pats, key, p) {
        if (n++)
            ts_put(b, " | ");
        ts_type(b, T, p, indent, depth + 1);
    }
    if (json_is_object(extra)) {
        if (n++)
            ts_put(b, " | ");
        ts_type(b, T, extra, indent, depth + 1);
    }
    return n;
}

static void ts_object(capsa__buf *b, const ts_ctx *T, const json_t *s, int indent, int depth)
{
    const json_t *props = json_object_get(s, "properties");
    const json_t *req = json_object_get(s, "required");
    if (!json_object_size(props)) {
        int open;
        ts_put(b, "Record<string, ");
        if (!ts_index_type(b, T, s, indent, depth, &open))
            ts_put(b, open ? "unknown" : "never");
        ts_put(b, ">");
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
        ts_doc(b, p, indent + 1);
        ts_indent(b, indent + 1);
        ts_key(b, key);
        ts_put(b, required ? ": " : "?: ");
        ts_type(b, T, p, indent + 1, depth + 1);
        ts_put(b, ";\n");
    }
    /* Other members, when the schema says they may be there (without
       additionalProperties, the declared ones are what a call should send): their
       type is not given here, as the properties above need not fit it the way an
       index signature would demand. */
    const json_t *extra = json_object_get(s, "additionalProperties");
    if (json_is_true(extra) || json_is_object(extra) ||
        json_object_size(json_object_get(s, "patternProperties"))) {
        ts_indent(b, indent + 1);
        ts_put(b, "[key: string]: unknown;\n");
    }
    ts_indent(b, indent);
    ts_put(b, "}");
}

/* An array: a tuple for prefixItems (draft-07: items as an array, with
 * additionalItems), its members past minItems optional, then the rest; else
 * Array<items>. */
static void ts_array(capsa__buf *b, const ts_ctx *T, const json_t *s, int indent, int depth)
{
    const json_t *items = json_object_get(s, "items");
    const json_t *prefix = json_object_get(s, "prefixItems");
    const json_t *rest = items;
    if (!prefix && json_is_array(items)) {
        prefix = items;
        rest = json_object_get(s, "additionalItems");
    }
    if (!json_is_array(prefix)) {
        ts_put(b, "Array<");
        if (json_is_object(rest) || json_is_boolean(rest))
            ts_type(b, T, rest, indent, depth + 1);
        else
            ts_put(b, "unknown");
        ts_put(b, ">");
        return;
    }
    const json_t *min = json_object_get(s, "minItems");
    json_int_t required = json_is_integer(min) ? json_integer_value(min) : 0;
    ts_put(b, "[");
    size_t i;
    const json_t *v;
    json_array_foreach(prefix, i, v) {
        if (i)
            ts_put(b, ", ");
        if ((json_int_t)i < required) {
            ts_type(b, T, v, indent, depth + 1);
            continue;
        }
        /* An optional member: "T?", a union or intersection in parentheses. */
        capsa__buf el = { 0 };
        ts_type(&el, T, v, indent, depth + 1);
        int paren = el.data && (strstr(el.data, " | ") || strstr(el.data, " & "));
        ts_put(b, paren ? "(" : "");
        if (el.failed)
            capsa__buf_fail(b);
        else
            capsa__buf_append(b, &capsa__default_allocator, el.data, el.len);
        ts_put(b, paren ? ")?" : "?");
        capsa__buf_free(&el, &capsa__default_allocator);
    }
    if (!json_is_false(rest)) {
        if (i)
            ts_put(b, ", ");
        ts_put(b, "...Array<");
        if (json_is_object(rest))
            ts_type(b, T, rest, indent, depth + 1);
        else
            ts_put(b, "unknown");
        ts_put(b, ">");
    }
    ts_put(b, "]");
}

static void ts_simple(capsa__buf *b, const ts_ctx *T, const char *type, const json_t *s, int indent,
                      int depth)
{
    if (strcmp(type, "string") == 0)
        ts_put(b, "string");
    else if (strcmp(type, "number") == 0 || strcmp(type, "integer") == 0)
        ts_put(b, "number");
    else if (strcmp(type, "boolean") == 0)
        ts_put(b, "boolean");
    else if (strcmp(type, "null") == 0)
        ts_put(b, "null");
    else if (strcmp(type, "array") == 0)
        ts_array(b, T, s, indent, depth);
    else if (strcmp(type, "object") == 0)
        ts_object(b, T, s, indent, depth);
    else
        ts_put(b, "unknown");
}

/* The type that s's own keywords give (type, or the object and array keywords
 * alone, or const/enum), or nothing when they say nothing. */
static void ts_base(capsa__buf *b, const ts_ctx *T, const json_t *s, int indent, int depth)
{
    const json_t *v, *type = json_object_get(s, "type");
    if ((v = json_object_get(s, "const"))) {
        ts_literal(b, v);
    } else if ((v = json_object_get(s, "enum")) && json_is_array(v)) {
        size_t i;
        const json_t *e;
        if (!json_array_size(v))
            ts_put(b, "never");
        json_array_foreach(v, i, e) {
            if (i)
                ts_put(b, " | ");
            ts_literal(b, e);
        }
    } else if (json_is_string(type)) {
        ts_simple(b, T, json_string_value(type), s, indent, depth);
    } else if (json_is_array(type)) {
        size_t i;
        const json_t *e;
        if (!json_array_size(type))
            ts_put(b, "never");
        json_array_foreach(type, i, e) {
            if (i)
                ts_put(b, " | ");
            ts_simple(b, T, json_is_string(e) ? json_string_value(e) : "", s, indent, depth);
        }
    } else if (json_object_get(s, "properties") || json_object_get(s, "additionalProperties") ||
               json_object_get(s, "patternProperties")) {
        ts_object(b, T, s, indent, depth);
    } else if (json_object_get(s, "items") || json_object_get(s, "prefixItems")) {
        ts_array(b, T, s, indent, depth);
    }
}

/* The $defs (or draft-07 definitions) member name[0..len) of the root that gets a
 * type of its own: one whose name is an identifier. NULL for any other. */
static const json_t *ts_named_def(const ts_ctx *T, const char *ref, const char **name)
{
    static const char *const kw[] = { "$defs", "definitions", NULL };
    for (int i = 0; kw[i]; i++) {
        size_t n = strlen(kw[i]);
        if (strncmp(ref, "#/", 2) != 0 || strncmp(ref + 2, kw[i], n) != 0 || ref[2 + n] != '/' ||
            !ts_is_ident(ref + 3 + n))
            continue;
        n += 3;
        const json_t *def = json_object_get(json_object_get(T->root, kw[i]), ref + n);
        if (json_is_object(def) || json_is_boolean(def)) {
            *name = ref + n;
            return def;
        }
    }
    return NULL;
}

/* The subschema that the JSON Pointer fragment ref ("#/a/b~1c") names, or NULL
 * (percent-encoded pointers are not decoded here: such a reference is inlined as
 * unknown, the validator still checks it). */
static const json_t *ts_pointer(const json_t *root, const char *ref)
{
    if (ref[0] != '#')
        return NULL;
    const json_t *v = root;
    const char *p = ref + 1;
    while (v && *p == '/') {
        char key[256];
        size_t k = 0;
        for (p++; *p && *p != '/'; p++) {
            char ch = *p;
            if (ch == '%')
                return NULL;
            if (ch == '~') {
                if (p[1] != '0' && p[1] != '1')
                    return NULL;
                ch = *++p == '0' ? '~' : '/';
            }
            if (k + 1 >= sizeof(key))
                return NULL;
            key[k++] = ch;
        }
        key[k] = '\0';
        if (json_is_object(v)) {
            v = json_object_get(v, key);
        } else if (json_is_array(v)) {
            char *end;
            unsigned long i = strtoul(key, &end, 10);
            v = *key && !*end ? json_array_get(v, i) : NULL;
        } else {
            v = NULL;
        }
    }
    return *p ? NULL : v;
}

/* The type of a $ref: the root's own type for "#", a named type for a $defs
 * member, else the target inlined (a chain of references deeper than the depth
 * bound ends in unknown). */
static void ts_ref(capsa__buf *b, const ts_ctx *T, const char *ref, int indent, int depth)
{
    const char *name;
    if (strcmp(ref, "#") == 0) {
        ts_put(b, T->args_name);
    } else if (ts_named_def(T, ref, &name)) {
        ts_put(b, T->args_name);
        ts_put(b, "_");
        ts_put(b, name);
    } else {
        const json_t *target = ts_pointer(T->root, ref);
        if (target)
            ts_type(b, T, target, indent, depth + 1);
        else
            ts_put(b, "unknown");
    }
}

/* The type of JSON Schema s: the parts its keywords give (its own type, $ref,
 * anyOf, oneOf, each member of allOf) joined as an intersection, unions in
 * parentheses; parts that say nothing (unknown, or a bare object beside others)
 * are left out, and a schema with no part is unknown. true is unknown, false
 * never. */
static void ts_type(capsa__buf *b, const ts_ctx *T, const json_t *s, int indent, int depth)
{
    if (json_is_false(s)) {
        ts_put(b, "never");
        return;
    }
    if (depth > TS_MAX_DEPTH || !json_is_object(s)) {
        ts_put(b, "unknown");
        return;
    }
    enum { P_BASE, P_REF, P_ANY, P_ONE, P_ALL };
    const json_t *all = json_object_get(s, "allOf");
    size_t nparts = P_ALL + json_array_size(all), kept = 0;
    capsa__buf *parts = calloc(nparts, sizeof(*parts));
    if (!parts) {
        capsa__buf_fail(b);
        return;
    }
    for (size_t i = 0; i < nparts; i++) {
        capsa__buf *part = &parts[i];
        const json_t *v;
        if (i == P_BASE)
            ts_base(part, T, s, indent, depth);
        else if (i == P_REF && json_is_string(v = json_object_get(s, "$ref")))
            ts_ref(part, T, json_string_value(v), indent, depth);
        else if (i == P_ANY && json_is_array(v = json_object_get(s, "anyOf")))
            ts_union(part, T, v, indent, depth);
        else if (i == P_ONE && json_is_array(v = json_object_get(s, "oneOf")))
            ts_union(part, T, v, indent, depth);
        else if (i >= P_ALL)
            ts_type(part, T, json_array_get(all, i - P_ALL), indent, depth + 1);
        if (part->failed)
            capsa__buf_fail(b);
        if (!part->len || strcmp(part->data, "unknown") == 0)
            capsa__buf_clear(part);
        kept += part->len > 0;
    }
    if (kept > 1 && parts[P_BASE].len && strcmp(parts[P_BASE].data, "Record<string, unknown>") == 0) {
        capsa__buf_clear(&parts[P_BASE]);
        kept--;
    }
    size_t shown = 0;
    for (size_t i = 0; i < nparts; i++) {
        if (parts[i].len) {
            int paren = kept > 1 && strstr(parts[i].data, " | ") != NULL;
            ts_put(b, shown++ ? " & " : "");
            ts_put(b, paren ? "(" : "");
            capsa__buf_append(b, &capsa__default_allocator, parts[i].data, parts[i].len);
            ts_put(b, paren ? ")" : "");
        }
        capsa__buf_free(&parts[i], &capsa__default_allocator);
    }
    free(parts);
    if (!shown) {
        /* An object with nothing to say of its members is still an object. */
        const json_t *type = json_object_get(s, "type");
        ts_put(b, json_is_string(type) && strcmp(json_string_value(type), "object") == 0
                      ? "Record<string, unknown>" : "unknown");
    }
}

/* Writes the PascalCase form of flat ("math_add" -> "MathAdd") to out (room for
 * TS_NAME_MAX bytes). */
static void ts_pascal(const char *flat, char *out)
{
    size_t k = 0;
    int up = 1;
    for (const char *p = flat; *p && k + 1 < TS_NAME_MAX; p++) {
        if (*p == '_') {
            up = 1;
            continue;
        }
        out[k++] = up && *p >= 'a' && *p <= 'z' ? (char)(*p - 'a' + 'A') : *p;
        up = 0;
    }
    out[k] = '\0';
}

/* The name of tools[i]'s arguments' (kind "Args") or result's ("Result") type
 * ("MathAddArgs"), into out (TS_ARGS_MAX bytes): unique among the tools, as flat
 * names differ but their PascalCase may not ("math_add" and "mathAdd"): a later
 * tool whose name is taken gets a number ("MathAddArgs2"). */
static void ts_type_name(const capsa__dts_tool *tools, size_t i, const char *kind, char *out)
{
    char mine[TS_NAME_MAX], other[TS_NAME_MAX];
    ts_pascal(tools[i].flat, mine);
    int same = 0;
    for (size_t k = 0; k < i; k++) {
        ts_pascal(tools[k].flat, other);
        same += strcmp(mine, other) == 0;
    }
    if (same)
        snprintf(out, TS_ARGS_MAX, "%s%s%d", mine, kind, same + 1);
    else
        snprintf(out, TS_ARGS_MAX, "%s%s", mine, kind);
}

/* The named types of the root's $defs (and draft-07 definitions) whose names are
 * identifiers, each "type <ArgsName>_<name> = ...;" with its doc comment. */
static void ts_defs(capsa__buf *b, const ts_ctx *T, const char *prefix)
{
    static const char *const kw[] = { "$defs", "definitions", NULL };
    for (int i = 0; kw[i]; i++) {
        const char *name;
        const json_t *def;
        json_object_foreach((json_t *)json_object_get(T->root, kw[i]), name, def) {
            char ref[TS_NAME_MAX + 32];
            const char *shown;
            if (strlen(name) >= TS_NAME_MAX)
                continue;
            snprintf(ref, sizeof(ref), "#/%s/%s", kw[i], name);
            if (ts_named_def(T, ref, &shown) != def)
                continue;
            ts_doc(b, def, 0);
            ts_put(b, prefix);
            ts_put(b, "type ");
            ts_put(b, T->args_name);
            ts_put(b, "_");
            ts_put(b, name);
            ts_put(b, " = ");
            ts_type(b, T, def, 0, 0);
            ts_put(b, ";\n");
        }
    }
}

/* "type <name> = ...;" for schema (JSON text), after its named types, with its
 * doc comment. Returns whether the schema requires something (a "required" list). */
static int ts_named_type(capsa__buf *b, const char *text, const char *name, const char *prefix)
{
    json_t *schema = json_loads(text, 0, NULL);
    ts_ctx T = { schema, name };
    int required = json_array_size(json_object_get(schema, "required")) > 0;
    ts_defs(b, &T, prefix);
    ts_doc(b, schema, 0);
    ts_put(b, prefix);
    ts_put(b, "type ");
    ts_put(b, name);
    ts_put(b, " = ");
    ts_type(b, &T, schema, 0, 0);
    ts_put(b, ";\n");
    json_decref(schema);
    return required;
}

/* The declarations of tools[i]: its named types, its arguments' type, its
 * result's when it declares one, and its function. */
static void ts_tool(capsa__buf *b, const capsa__dts_tool *tools, size_t i, const char *prefix)
{
    const capsa__dts_tool *tl = &tools[i];
    char args_name[TS_ARGS_MAX], result_name[TS_ARGS_MAX];
    ts_type_name(tools, i, "Args", args_name);
    int optional = !ts_named_type(b, tl->schema, args_name, prefix);
    if (tl->returns) {
        ts_type_name(tools, i, "Result", result_name);
        ts_named_type(b, tl->returns, result_name, prefix);
    }
    ts_doc_text(b, tl->description, strlen(tl->description), 0);
    ts_put(b, prefix);
    ts_put(b, "function ");
    ts_put(b, tl->flat);
    ts_put(b, optional ? "(args?: " : "(args: ");
    ts_put(b, args_name);
    ts_put(b, "): Promise<");
    ts_put(b, tl->returns ? result_name : "any");
    ts_put(b, ">;\n");
}

/* The members of the namespace whose tools' names start with the segments
 * prefix[0..plen) (names are canonical: split on '.'), nested. */
static void ts_namespace(capsa__buf *b, const capsa__dts_tool *tools, size_t n, const char *prefix,
                         size_t plen, int indent)
{
    for (size_t i = 0; i < n && !b->failed; i++) {
        const char *name = tools[i].name;
        if (plen && (strncmp(name, prefix, plen) != 0 || !capsa__name_sep(name[plen])))
            continue;
        const char *seg = plen ? name + plen + 1 : name;
        size_t slen = strcspn(seg, "./");
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
        ts_tool(&b, tools, (size_t)(one - tools), "export declare ");
    } else {
        ts_put(&b, "interface ToolError extends Error {\n  code: string;\n  tool: string;\n}\n\n");
        for (size_t i = 0; i < n && !b.failed; i++) {
            ts_tool(&b, tools, i, "declare ");
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
