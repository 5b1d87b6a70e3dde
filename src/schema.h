/* JSON Schema validation of tool arguments (draft 2020-12, and draft-07 by its
 * $schema): a schema is compiled once into a validator, which checks values and
 * names the path and the rule of the first failure. Used by the tool call path
 * and the MCP client.
 *
 * Supported keywords, with their 2020-12 meaning:
 *   any:     type, enum, const, allOf, anyOf, oneOf, not, if/then/else, $ref, $defs
 *   numbers: minimum, maximum, exclusiveMinimum, exclusiveMaximum, multipleOf
 *   strings: minLength, maxLength (in code points), pattern
 *   arrays:  prefixItems, items, contains, minContains, maxContains, minItems,
 *            maxItems, uniqueItems
 *   objects: properties, patternProperties, additionalProperties, required,
 *            dependentRequired, dependentSchemas, propertyNames, minProperties,
 *            maxProperties
 * Numbers compare by value and exactly (capsa__json_num_cmp): 1.0 is an integer,
 * and 9007199254740993 is greater than 9007199254740992.0. multipleOf is decided
 * on the shortest decimal form of both numbers, so 0.0075 is a multiple of 0.0001.
 *
 * Annotations are ignored: title, description, default, examples, deprecated,
 * readOnly, writeOnly, $comment, format (not asserted), contentEncoding,
 * contentMediaType, contentSchema, $vocabulary. Unknown keywords are ignored too,
 * as the specification says, unless CAPSA__SCHEMA_STRICT is given, which refuses
 * them (a typo such as "requried" then fails the compile instead of checking
 * nothing). Keywords that would assert something this validator cannot check fail
 * the compile: unevaluatedProperties, unevaluatedItems, $dynamicRef,
 * $dynamicAnchor, $recursiveRef, $recursiveAnchor; in a 2020-12 schema also the
 * draft-07 forms additionalItems, dependencies and an array under items.
 *
 * References. $ref takes "#", "#/json/pointer" (percent-decoded, ~0 and ~1) and
 * "#name" for a $anchor, resolved within the schema resource that holds the $ref
 * (the document, or a subschema with an $id of its own); a reference whose part
 * before '#' is exactly the $id of a resource in the document resolves there. Any
 * other reference (a remote or relative URI) fails the compile: nothing is ever
 * fetched. A cycle of references that can recur without descending into the value
 * ({"$ref": "#"} at the root) fails the compile too.
 *
 * Dialects. "$schema" at the root picks one: 2020-12
 * ("https://json-schema.org/draft/2020-12/schema") or draft-07
 * ("http://json-schema.org/draft-07/schema", with or without '#'); another value
 * fails the compile. Without $schema, CAPSA__SCHEMA_DRAFT7 picks draft-07 and the
 * default is 2020-12. In draft-07, items may be an array (a tuple, with
 * additionalItems for the rest), dependencies is dependentRequired or
 * dependentSchemas by the kind of its values, definitions holds subschemas,
 * "$id": "#name" is an anchor, and the siblings of a $ref are ignored.
 *
 * Patterns (pattern, patternProperties) are ECMA-262 regular expressions,
 * translated to POSIX extended ones and run by regcomp/regexec in the C.UTF-8
 * locale (set for the calling thread only, with uselocale), so that '.' and
 * classes match code points. Supported: literals, '.', classes with ranges
 * (ASCII ranges; non-ASCII members one by one), \d \D \w \W \s \S, \b \B, the
 * escapes \t \n \r \f \v \xHH \uHHHH and escaped punctuation, groups (capturing,
 * (?:...) and (?<name>...), all only grouping), alternation, ^ $, and the
 * quantifiers * + ? {n} {n,} {n,m} (lazy forms match the same strings). Refused
 * with a clear message: lookahead and lookbehind, back-references, \p{...},
 * \c, \0, non-ASCII ranges, \D \W \S inside a class, bounds over 1000 and patterns
 * whose repetitions would expand past a fixed size. A NUL character in a string
 * is matched by nothing, not even '.'.
 *
 * Bounds. A schema document may nest CAPSA__SCHEMA_MAX_NEST levels; a validation
 * goes at most CAPSA__SCHEMA_MAX_DEPTH schemas deep and takes at most
 * CAPSA__SCHEMA_MAX_STEPS schema applications, and uniqueItems looks at
 * arrays of at most CAPSA__SCHEMA_MAX_UNIQUE bytes of canonical form; past any of
 * these the value is refused (CAPSA_ETOOBIG), never checked in part. Nothing
 * recurses on the C stack more than these depths allow.
 *
 * Memory: the validator's own goes through the allocator given to the compile;
 * the document's copy (jansson), regcomp/regexec and the C.UTF-8 locale object
 * use the C library's. A compiled schema is immutable: one may be used by
 * several threads at once. */
#ifndef CAPSA_SCHEMA_H
#define CAPSA_SCHEMA_H

#include <jansson.h>
#include <stddef.h>

#include "capsa.h"

#define CAPSA__SCHEMA_MAX_NEST 128
#define CAPSA__SCHEMA_MAX_DEPTH 256
#define CAPSA__SCHEMA_MAX_STEPS (1u << 22)
#define CAPSA__SCHEMA_MAX_UNIQUE (16u << 20)

/* Room that messages need: longer ones are cut and end with "...". */
#define CAPSA__SCHEMA_MSG_MAX 1024

/* Compile flags. */
#define CAPSA__SCHEMA_STRICT 1u  /* unknown keywords fail the compile */
#define CAPSA__SCHEMA_DRAFT7 2u  /* draft-07 when the schema has no $schema */

typedef struct capsa__schema capsa__schema;

/* Compiles the schema document doc (a JSON object or boolean; it is copied, so
 * the caller keeps doc and may change it afterwards) with the allocator a (NULL:
 * the C library's; it must outlive the schema). On success *out owns the
 * validator, freed with capsa__schema_free. On failure *out is NULL, the result is
 * CAPSA_EINVAL for a bad or unsupported schema and CAPSA_ENOMEM when out of
 * memory, and err (errsize bytes; may be NULL/0) says what is wrong, naming the
 * place in the schema as a JSON Pointer: "#/properties/q/type: unknown type
 * 'strin'", "#/$ref: cannot resolve '#/$defs/missing'". */
int capsa__schema_compile(const capsa_allocator *a, const json_t *doc, unsigned flags,
                          capsa__schema **out, char *err, size_t errsize);

/* The same from JSON text text[0..len), parsed strictly (capsa__json_load_strict:
 * a duplicate key is an error, reported with its line and column). */
int capsa__schema_parse(const capsa_allocator *a, const char *text, size_t len, unsigned flags,
                        capsa__schema **out, char *err, size_t errsize);

/* Frees a validator; NULL is a no-op. */
void capsa__schema_free(capsa__schema *s);

/* Validates value (borrowed, only read) against s. Returns CAPSA_OK when it is
 * valid; CAPSA_EINVAL when it is not, with msg (msgsize bytes; may be NULL/0)
 * naming the instance's path as a JSON Pointer ("/" for the value itself) and the
 * rule that failed, e.g. "/items/2/name: expected string, got number" or
 * "/: missing required property 'q'"; CAPSA_ETOOBIG when the value is beyond the
 * validator's bounds (see above), with msg saying which; CAPSA_ENOMEM when
 * out of memory (only uniqueItems, propertyNames and regexec allocate). Only the first
 * failure is reported. Property names in messages are quoted with control bytes
 * escaped, so that a value cannot forge a message's text. */
int capsa__schema_validate(const capsa__schema *s, const json_t *value, char *msg, size_t msgsize);

/* The schema document that s was compiled from (its copy, which s owns): for the
 * TypeScript declarations, which are made from the same schema. Valid until
 * capsa__schema_free(s); must not be changed. */
const json_t *capsa__schema_json(const capsa__schema *s);

#endif
