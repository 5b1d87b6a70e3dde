// The capability checker for tool calls: a policy is an ordered list of
// capabilities (a method pattern, constraints on the arguments, a call budget),
// and every call a guest makes is decided by capsa__policy_check before any tool
// runs. Deny by default: an empty policy refuses everything.
//
// Methods and patterns. A tool's name is segments joined by '.', its canonical
// separator; '/' is the same separator, so "stripe/charges/create" and
// "stripe.charges.create" are one name, and patterns may use either ("github.*",
// "github/*"). Patterns are kept in the canonical form (every '/' made '.'), and
// the decisions' messages name them so. In a pattern a segment "*" matches exactly
// one segment, "**" zero or more, and any other segment matches itself only
// (byte-exact, case-sensitive); so "math.**" matches "math", "math.add" and
// "math.a.b", and "*" matches "echo" but not "math.add". A '*' inside a longer
// segment ("charges*") is a load error rather than a literal, as are empty
// segments ("a..b", "a/.b", a leading or trailing separator). A method that is
// empty or has an empty segment matches nothing. (The tool registry accepts no
// other separator: ':' is not one.)
//
// Constraints. Each names a parameter by a path ("amount", "body/user/email",
// "items/0/id"): a segment looks a key up in an object, or, in an array, is an
// index written in decimal without sign or leading zeros. As in a JSON Pointer,
// a key that holds '/' or '~' is written with "~1" for '/' and "~0" for '~'
// ("b~1c" is the key "b/c"; "b/c" is the member "c" of "b"), so each path names
// one place; any other '~' is a load error. Semantics:
//  - A parameter that is missing or JSON null fails every constraint except
//    not_exists, which it satisfies: null does not "exist". (A null constraint
//    value could therefore never match and is a load error.)
//  - Values of different types never compare, and the constraint fails; this
//    holds for "!=" and "not_in" too ("!=" 5 is not satisfied by "5" or true).
//    The types are: number, string, boolean, object, array; booleans are not
//    numbers.
//  - Numbers compare as the decimals their text writes, exactly: the integer 5
//    equals the real 5.0 and 5e0, -0.0 equals 0, and 9007199254740993 is more than
//    9007199254740992.0. A number is held as a 64-bit integer or a double, so one
//    whose text says more than that holds (10.0000000000000001 would be 10,
//    1e-400 would be 0) is refused where the text is parsed, in a policy and in a
//    call's arguments alike (see capsa__json_load_strict): every accepted real is
//    the shortest form of its double, what JSON.stringify writes.
//  - "==", "!=", "in", "not_in" and array "contains" compare strings byte by byte
//    and objects and arrays structurally (numbers inside them by value, too).
//  - "<" "<=" ">" ">=" need a number on both sides. "starts_with"/"ends_with" need
//    strings on both sides. "contains" is a substring test on a string parameter
//    and a member test on an array parameter; anything else fails.
//  - "in"/"not_in" take a non-empty array: "in" holds when a member equals the
//    parameter, "not_in" when the parameter has the type of some member and equals
//    none of them (members of other types never match).
//  - "and"/"or" combine constraints, nested at most CAPSA__POLICY_MAX_DEPTH deep.
//
// Budgets. Capabilities are tried in order; the first whose pattern and
// constraints match and that still has budget authorises the call and spends one
// unit of it; an exhausted one falls through to the next. Budgets belong to the
// policy object, so each sandbox needs a policy object of its own.
//
// Policy file (JSON, parsed fail closed: any unknown field, wrong type, bad value
// or duplicate key is an error naming the line/column or the field at fault):
//   {"capabilities": [
//     {"pattern": "stripe/charges/*",
//      "constraints": [{"param": "amount", "op": "<=", "value": 1000},
//                      {"or": [{"param": "currency", "op": "in", "value": ["usd"]},
//                              {"param": "test", "op": "==", "value": true}]}],
//      "max_calls": 3}]}
// "constraints" and "max_calls" are optional; "max_calls" is a positive integer
// (0 is an error: omit the field for no limit, or leave the capability out to
// deny). "value" is absent for exists/not_exists and required otherwise.
//
// A policy object is used by one thread at a time (a check spends budget).
// (Line comments here: the patterns in them hold "/*", which -Wcomment rejects inside
// a block comment.)
#ifndef CAPSA_POLICY_H
#define CAPSA_POLICY_H

#include <jansson.h>
#include <stddef.h>
#include <stdint.h>

#include "capsa.h"

/* The deepest nesting of and/or a policy may use, so that a hostile policy cannot
 * exhaust the stack of the checker. */
#define CAPSA__POLICY_MAX_DEPTH 32

/* Room for a decision's message; longer messages are cut and end with "...". */
#define CAPSA__POLICY_MSG_MAX 1024

typedef struct capsa__policy capsa__policy;

/* Whether ch joins two segments of a tool name or pattern: '.', the canonical
 * separator, or '/', the same separator written another way. */
static inline int capsa__name_sep(char ch)
{
    return ch == '.' || ch == '/';
}

/* Makes name[0..len) canonical in place: every '/' becomes '.'. */
void capsa__name_canon(char *name, size_t len);

/* Whether a[0..alen) and b[0..blen) are the same name or pattern: equal bytes,
 * except that '.' and '/' are the same separator. */
int capsa__name_equal(const char *a, size_t alen, const char *b, size_t blen);

// The outcome of one check. capability is the index of the authorising capability
// when allowed; when denied, the index of the capability the message is about (a
// failed constraint or a spent budget), or -1 when no pattern matched. message is
// NUL-terminated and tells the model what was refused and why, in one of the shapes
//   No capability authorizes 'stripe.refunds.create'. Granted: ['stripe.charges.*']
//   'stripe.charges.create' matched 'stripe.charges.*' but failed: amount <= 1000 (got 5000)
//   Call limit reached for 'stripe.charges.*': 3 of 3 used
// or "'m' allowed by 'pattern'" when allowed (capsa__policy_peek's; capsa__policy_check
// leaves an allowed call's message empty). Methods and patterns are named in
// their canonical form ('stripe.charges.create', whichever separator was given).
// When some capability passed its constraints but had spent its budget, the limit
// is reported (the call would pass otherwise); else the first constraint failure
// of the first matching capability.
// Names are quoted with ', \ and control bytes escaped; long texts are cut.
typedef struct capsa__decision {
    int allowed;
    int capability;
    char message[CAPSA__POLICY_MSG_MAX];
} capsa__decision;

/* Creates an empty policy, which denies every call. a (NULL: the C library's) is
 * copied and used for all of the policy's memory. On success *out owns the policy,
 * freed with capsa__policy_free; on failure (CAPSA_ENOMEM) *out is NULL. */
int capsa__policy_new(const capsa_allocator *a, capsa__policy **out);

/* Parses a policy file of len bytes (see the format above). On success *out owns
 * a new policy. On failure *out is NULL and err (errsize bytes, may be NULL/0)
 * says what is wrong, e.g. "capabilities[1].constraints[0].op: unknown operator
 * 'lte'" or "line 3 column 5: duplicate object key"; the result is CAPSA_EINVAL
 * for a bad policy and CAPSA_ENOMEM when out of memory. */
int capsa__policy_parse(const capsa_allocator *a, const char *json, size_t len,
                        capsa__policy **out, char *err, size_t errsize);

/* Appends a capability: pattern as in a policy file (kept canonical), constraints_json the text of
 * a constraint list as in a policy file ("[{\"param\":...}]"; NULL for none) and
 * max_calls the budget (0: unlimited). The strings are copied. On failure the
 * policy is unchanged and err says why (CAPSA_EINVAL, paths as "constraints[0].op")
 * or CAPSA_ENOMEM. */
int capsa__policy_add(capsa__policy *p, const char *pattern, const char *constraints_json,
                      uint64_t max_calls, char *err, size_t errsize);

/* Decides a call of method with the arguments args (a parsed JSON value, usually
 * an object; NULL means none: every parameter is missing) and fills *d (required).
 * When the call is allowed, one unit of the authorising capability's budget is
 * spent. Never allocates from the policy's allocator and cannot fail; args is only
 * read. */
void capsa__policy_check(capsa__policy *p, const char *method, const json_t *args,
                         capsa__decision *d);

/* The same decision and message as capsa__policy_check would give now, spending
 * nothing: for dry runs (can_call). */
void capsa__policy_peek(const capsa__policy *p, const char *method, const json_t *args,
                        capsa__decision *d);

/* The number of capabilities. */
size_t capsa__policy_count(const capsa__policy *p);
/* The pattern of capability i, valid while the policy lives; NULL if i is out of range. */
const char *capsa__policy_pattern(const capsa__policy *p, size_t i);
// The first capability whose pattern is pattern (capsa__name_equal: "a/*" finds
// "a.*"), or -1: the key of get_remaining_calls(key).
long capsa__policy_index(const capsa__policy *p, const char *pattern);
/* The budget of capability i; 0 when unlimited (or i out of range). */
uint64_t capsa__policy_max_calls(const capsa__policy *p, size_t i);
/* Calls authorised by capability i since creation or the last reset. */
uint64_t capsa__policy_used(const capsa__policy *p, size_t i);
/* Calls capability i may still authorise: UINT64_MAX when unlimited, 0 when i is
 * out of range. */
uint64_t capsa__policy_remaining(const capsa__policy *p, size_t i);
/* Sets capability i's count of used calls (a checkpoint's): 0, or -1 when i is
 * out of range or used is over its budget. */
int capsa__policy_set_used(capsa__policy *p, size_t i, uint64_t used);
/* Sets every capability's count of used calls back to zero. */
void capsa__policy_reset_budgets(capsa__policy *p);

/* The policy as the JSON text of a policy file (compact), which parses back to an
 * equivalent policy; budgets used are not part of it. The string is allocated with
 * the policy's allocator: the caller frees it with capsa__policy_free_string.
 * NULL when out of memory. */
char *capsa__policy_to_json(const capsa__policy *p);
/* Frees a string returned by capsa__policy_to_json; NULL is a no-op. */
void capsa__policy_free_string(const capsa__policy *p, char *s);

/* Frees the policy and everything it owns; NULL is a no-op. */
void capsa__policy_free(capsa__policy *p);

#endif
