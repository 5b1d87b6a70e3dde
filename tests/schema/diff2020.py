"""The differential test of the draft 2020-12 forms: schema + instance pairs whose
verdicts come from another validator, Debian's python3-jsonschema (4.10, whose
Draft202012Validator implements 2020-12), written in the JSON-Schema-Test-Suite's
format for tests/schema/suite.c to check capsa's validator against (run.sh runs both).

The official suite in Debian stops at draft-07, so this is what checks the 2020-12
keywords (prefixItems, items after prefixItems, $defs, $anchor, dependentRequired,
dependentSchemas, minContains/maxContains, $ref beside other keywords, ...) against an
independent implementation. Every schema must pass jsonschema's own check_schema, and
its verdict must not raise: a pair the other validator cannot decide is a broken test,
not a difference. Where the two disagree by design, the case is listed with its reason
in tests/schema/diff2020-known.txt (capsa follows the specification there).

usage: /usr/bin/python3 diff2020.py OUT.json   (Debian's interpreter: its jsonschema)
"""

import json
import sys

try:
    import jsonschema
    from importlib.metadata import version
except ImportError:
    print("FAIL diff2020: no jsonschema for this Python (apt-get install python3-jsonschema)")
    print("0 passed, 1 failed")
    sys.exit(1)

S = "https://json-schema.org/draft/2020-12/schema"

# (group, schema, instances): every instance is checked by both validators.
CASES = [
    ("type", {"type": "integer"}, [1, 1.0, -0.0, 1.5, "1", True, None, [], {}, 2**62]),
    ("type list", {"type": ["string", "null"]}, ["", None, 0, False, [], {}]),
    ("number", {"type": "number"}, [0, -1.25, 1e300, "1", True, None]),
    ("boolean/null/array/object", {"type": ["boolean", "array"]}, [True, False, [], [1], 0, None, {}]),
    ("enum of mixed values", {"enum": [1, "one", None, [1, 2], {"a": 1}, False]},
     [1, 1.0, "one", None, [1, 2], [2, 1], {"a": 1}, {"a": 1.0}, {"a": 1, "b": 2}, False, 0, True, "1"]),
    ("const object", {"const": {"a": [1, {"b": None}]}},
     [{"a": [1, {"b": None}]}, {"a": [1.0, {"b": None}]}, {"a": [1, {}]}, {"a": [1, {"b": False}]}, []]),
    ("const false is not 0", {"const": False}, [False, 0, 0.0, None, "false"]),
    ("const 1 is not true", {"const": 1}, [1, 1.0, True, "1"]),
    ("minimum/maximum", {"minimum": 1.5, "maximum": 10},
     [1.5, 1.4999, 10, 10.0001, 5, -1, "5", None]),
    ("exclusive bounds", {"exclusiveMinimum": 0, "exclusiveMaximum": 1},
     [0, 0.0, 1e-9, 0.5, 0.999999, 1, 2, "0.5"]),
    ("multipleOf integer", {"multipleOf": 3}, [0, 3, 9, -6, 4, 3.0, 4.5, "9"]),
    ("multipleOf 0.5", {"multipleOf": 0.5}, [1, 1.5, 2.25, 0, -0.5, 0.75]),
    ("multipleOf 0.1 (decimal)", {"multipleOf": 0.1}, [0.3, 1.1, 0.35]),
    ("minLength/maxLength in code points", {"minLength": 2, "maxLength": 3},
     ["ab", "abc", "a", "abcd", "\u00e9\u00e9", "\U0001F600", "\U0001F600\U0001F600", "", 12]),
    ("pattern (unanchored)", {"pattern": "[0-9]{3}"}, ["123", "a1234b", "12", "abc", "", 123]),
    ("pattern anchored", {"pattern": "^[a-z]+(-[a-z]+)*$"},
     ["abc", "a-b-c", "a--b", "-a", "A", "", "abc-"]),
    ("pattern classes", {"pattern": "^\\w+@\\w+\\.[a-z]{2,}$"},
     ["me@host.com", "me@host.c", "@host.com", "me_1@h2.org", "me@host.COM"]),
    ("pattern dot matches one code point", {"pattern": "^.$"}, ["a", "\u00e9", "\U0001F600", "ab", ""]),
    ("pattern with alternation and groups", {"pattern": "^(?:foo|bar)+(baz)?$"},
     ["foo", "foobar", "barbaz", "baz", "fooba", "foobarbazbaz"]),
    ("pattern \\d is ASCII (ECMA-262)", {"pattern": "^\\d+$"}, ["123", "\u0661\u0662\u0663", "12a"]),
    ("pattern \\s and \\S", {"pattern": "^\\S+\\s\\S+$"}, ["a b", "a  b", "a\tb", "ab", " a b"]),
    ("prefixItems", {"prefixItems": [{"type": "string"}, {"type": "integer"}]},
     [[], ["a"], ["a", 1], ["a", 1, "extra"], [1, "a"], ["a", 1.5], "ab", {"0": "a"}]),
    ("prefixItems then items false", {"prefixItems": [{"type": "string"}], "items": False},
     [[], ["a"], ["a", "b"], [1]]),
    ("prefixItems then items schema", {"prefixItems": [{"const": 0}], "items": {"type": "boolean"}},
     [[0], [0, True, False], [0, 1], [1, True], []]),
    ("items alone", {"items": {"type": "number", "minimum": 0}}, [[], [0, 1.5], [1, -1], [1, "2"], "x"]),
    ("minItems/maxItems", {"minItems": 1, "maxItems": 2}, [[], [1], [1, 2], [1, 2, 3], {}, "ab"]),
    ("uniqueItems", {"uniqueItems": True},
     [[1, 2], [1, 1], [1, 1.0], [1, True], [0, False], [[1], [1]], [{"a": 1}, {"a": 1}],
      [{"a": 1, "b": 2}, {"b": 2, "a": 1}], [None, None], [], ["a", "A"]]),
    ("contains", {"contains": {"type": "integer"}}, [[1], ["a", 2], ["a"], [], [1.5], "x"]),
    ("minContains/maxContains", {"contains": {"const": 1}, "minContains": 2, "maxContains": 3},
     [[1, 1], [1, 1, 1], [1, 1, 1, 1], [1], [1, 2, 1], [2, 2], []]),
    ("minContains 0", {"contains": {"const": 1}, "minContains": 0}, [[], [2], [1]]),
    ("properties and required", {"properties": {"a": {"type": "string"}, "b": {"type": "integer"}},
                                 "required": ["a"]},
     [{"a": "x"}, {"a": "x", "b": 1}, {"b": 1}, {"a": 1}, {"a": "x", "b": "1"}, {}, [], "a"]),
    ("additionalProperties false", {"properties": {"a": {}}, "additionalProperties": False},
     [{}, {"a": 1}, {"a": 1, "b": 2}, {"b": None}]),
    ("additionalProperties schema with patternProperties",
     {"properties": {"id": {"type": "integer"}}, "patternProperties": {"^x-": {"type": "string"}},
      "additionalProperties": {"type": "boolean"}},
     [{"id": 1, "x-a": "s", "flag": True}, {"x-a": 1}, {"flag": "yes"}, {"id": "1"}, {"other": False}]),
    ("patternProperties overlapping", {"patternProperties": {"a": {"type": "integer"}, "b": {"minimum": 10}}},
     [{"ab": 11}, {"ab": 5}, {"ab": 11.5}, {"a": "x"}, {"c": "anything"}]),
    ("propertyNames", {"propertyNames": {"pattern": "^[a-z]+$", "maxLength": 3}},
     [{}, {"abc": 1}, {"abcd": 1}, {"Ab": 1}, {"a1": 1}]),
    ("minProperties/maxProperties", {"minProperties": 1, "maxProperties": 2},
     [{}, {"a": 1}, {"a": 1, "b": 2}, {"a": 1, "b": 2, "c": 3}, []]),
    ("dependentRequired", {"dependentRequired": {"card": ["cvv", "expiry"]}},
     [{}, {"card": 1, "cvv": 1, "expiry": 1}, {"card": 1, "cvv": 1}, {"cvv": 1}, {"expiry": 1, "card": 2}]),
    ("dependentSchemas", {"dependentSchemas": {"a": {"required": ["b"], "properties": {"b": {"type": "string"}}}}},
     [{}, {"a": 1, "b": "x"}, {"a": 1}, {"a": 1, "b": 2}, {"b": 2}]),
    ("allOf", {"allOf": [{"type": "object", "required": ["a"]}, {"properties": {"a": {"maximum": 5}}}]},
     [{"a": 1}, {"a": 6}, {}, {"a": "x"}, []]),
    ("anyOf", {"anyOf": [{"type": "string", "maxLength": 2}, {"type": "integer", "minimum": 10}]},
     ["ab", "abc", 10, 9, 10.0, None]),
    ("oneOf", {"oneOf": [{"type": "integer"}, {"minimum": 2}]}, [1, 3, 2.5, 0.5, "x"]),
    ("not", {"not": {"type": ["string", "null"]}}, ["x", None, 1, [], {}]),
    ("if/then/else", {"if": {"properties": {"kind": {"const": "card"}}, "required": ["kind"]},
                      "then": {"required": ["number"]}, "else": {"required": ["iban"]}},
     [{"kind": "card", "number": "4"}, {"kind": "card"}, {"kind": "bank", "iban": "x"}, {"kind": "bank"},
      {"iban": "x"}, {}]),
    ("if without then", {"if": {"minimum": 0}, "else": {"multipleOf": 2}}, [1, -2, -3, "x"]),
    ("boolean subschemas", {"properties": {"yes": True, "no": False}}, [{}, {"yes": 1}, {"no": 1}]),
    ("$ref to $defs", {"$defs": {"pos": {"type": "integer", "minimum": 1}},
                       "properties": {"n": {"$ref": "#/$defs/pos"}}},
     [{"n": 1}, {"n": 0}, {"n": "1"}, {}]),
    ("$ref with siblings (2020-12 applies both)",
     {"$defs": {"s": {"type": "string"}}, "properties": {"v": {"$ref": "#/$defs/s", "maxLength": 2}}},
     [{"v": "ab"}, {"v": "abc"}, {"v": 1}]),
    ("recursive $ref to the root", {"type": "object", "properties": {"name": {"type": "string"},
                                                                     "kids": {"type": "array", "items": {"$ref": "#"}}},
                                    "required": ["name"]},
     [{"name": "a"}, {"name": "a", "kids": [{"name": "b", "kids": []}]}, {"name": "a", "kids": [{}]},
      {"name": "a", "kids": [{"name": "b", "kids": [{"name": 3}]}]}]),
    ("$ref by JSON Pointer into properties", {"properties": {"a": {"type": "integer"}, "b": {"$ref": "#/properties/a"}}},
     [{"b": 1}, {"b": "x"}]),
    ("$ref with ~0 ~1 and %25", {"$defs": {"a/b": {"type": "integer"}, "c~d": {"type": "string"},
                                           "e%f": {"type": "null"}},
                                 "properties": {"x": {"$ref": "#/$defs/a~1b"}, "y": {"$ref": "#/$defs/c~0d"},
                                                "z": {"$ref": "#/$defs/e%25f"}}},
     [{"x": 1, "y": "s", "z": None}, {"x": "1"}, {"y": 1}, {"z": 0}]),
    ("$anchor", {"$defs": {"id": {"$anchor": "ident", "type": "string", "pattern": "^[A-Z]{2}[0-9]+$"}},
                 "items": {"$ref": "#ident"}},
     [["AB12", "CD3"], ["ab12"], [1], []]),
    ("$ref to an $id resource", {"$id": "https://example.com/root",
                                 "$defs": {"n": {"$id": "https://example.com/num", "type": "number"}},
                                 "properties": {"v": {"$ref": "https://example.com/num"}}},
     [{"v": 1}, {"v": "1"}]),
    ("nested applicators", {"type": "object", "properties": {"items": {"type": "array", "items": {
        "anyOf": [{"type": "object", "properties": {"id": {"type": "integer"}}, "required": ["id"],
                   "additionalProperties": False},
                  {"type": "string", "minLength": 1}]}, "maxItems": 3}},
                            "required": ["items"]},
     [{"items": []}, {"items": [{"id": 1}, "x"]}, {"items": [{"id": 1, "y": 2}]}, {"items": [""]},
      {"items": [1, 2, 3, 4]}, {"items": ["a", "b", "c", "d"]}, {}]),
    ("a typical tool schema", {"$schema": S, "type": "object", "properties": {
        "q": {"type": "string", "description": "the query"},
        "limit": {"type": "integer", "minimum": 1, "maximum": 100, "default": 10},
        "sort": {"enum": ["created", "updated"]},
        "labels": {"type": "array", "items": {"type": "string"}, "uniqueItems": True}},
        "required": ["q"], "additionalProperties": False},
     [{"q": "crash"}, {"q": "x", "limit": 100, "sort": "created", "labels": ["bug"]}, {"limit": 1},
      {"q": "x", "limit": 0}, {"q": "x", "limit": 10.5}, {"q": "x", "sort": "hot"},
      {"q": "x", "labels": ["a", "a"]}, {"q": "x", "page": 2}, {"q": None}]),
    ("format is not asserted", {"format": "email"}, ["not an email", "a@b.c", 1]),
    ("unknown keywords are ignored", {"x-extra": {"type": "string"}, "type": "integer"}, [1, "1"]),
    ("annotations only", {"title": "t", "description": "d", "default": 1, "examples": [1], "deprecated": True},
     [1, "x", None, {}]),
    ("empty schema", {}, [0, "", None, [], {}, True]),
    ("true schema", True, [0, None, {}]),
    ("false schema", False, [0, None, {}]),
]


# Every schema also meets these values: kinds it does not expect, near misses of the
# ones it does, so that type confusions show up as disagreements.
POOL = [None, True, False, 0, -1, 1, 1.0, 2.5, -0.5, 1e21, 2**53 + 1, "", "a", "abc", "123",
        "\u00e9\U0001F600", [], [1], [1, "a"], [1, 1], [[1]], {}, {"a": 1}, {"a": "x", "b": [1]},
        {"name": "n", "kids": []}, {"q": "x"}, {"kind": "card", "number": "4"}]


def main() -> int:
    if len(sys.argv) != 2:
        print(__doc__)
        return 2
    where = jsonschema.__file__
    have = version("jsonschema")
    print(f"diff2020: verdicts of python3-jsonschema {have} ({where})")
    if tuple(int(x) for x in have.split(".")[:2]) < (4, 10):
        print("FAIL diff2020: jsonschema 4.10 or later is needed (Draft202012Validator)")
        print("0 passed, 1 failed")
        return 1
    groups = []
    pairs = 0
    for group, schema, instances in CASES:
        jsonschema.Draft202012Validator.check_schema(schema)
        v = jsonschema.Draft202012Validator(schema)
        tests = []
        for i, data in enumerate(list(instances) + POOL):
            tests.append({"description": f"#{i} {json.dumps(data)[:60]}", "data": data,
                          "valid": v.is_valid(data)})
        groups.append({"description": group, "schema": schema, "tests": tests})
        pairs += len(tests)
    with open(sys.argv[1], "w", encoding="utf-8") as f:
        json.dump(groups, f, ensure_ascii=False, indent=1)
    print(f"diff2020: {len(groups)} schemas, {pairs} pairs written to {sys.argv[1]}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
