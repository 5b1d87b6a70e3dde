"""Capabilities: the Param DSL, the policy the C checker enforces, dry runs, budgets,
attenuation (is_subset_of), and strictness where amla is lax."""

from __future__ import annotations

import json
import unittest

import capsa
from capsa import ConstraintSet, MethodCapability, Param, ToolCallCap


def charge(amount: float, currency: str = "USD") -> dict:
    """Charge a card."""
    return {"charged": amount, "currency": currency}


class DslTest(unittest.TestCase):
    def test_every_operator_builds_policy_json(self) -> None:
        cs = ConstraintSet([
            Param("amount") <= 10000, Param("amount") < 20000, Param("amount") > 0,
            Param("amount") >= 1, Param("mode") == "live", Param("mode") != "test",
            Param("currency").is_in(["USD", "EUR"]), Param("country").not_in(["XX"]),
            Param("path").starts_with("/api/"), Param("file").ends_with(".json"),
            Param("query").contains("SELECT"), Param("id").exists(), Param("old").not_exists(),
            capsa.Constraint.or_([Param("a") == 1, Param("b") == 2]),
        ])
        ops = [c.get("op", "or") for c in cs.to_policy()]
        self.assertEqual(ops, ["<=", "<", ">", ">=", "==", "!=", "in", "not_in", "starts_with",
                               "ends_with", "contains", "exists", "not_exists", "or"])
        self.assertEqual(cs.to_policy()[0], {"param": "amount", "op": "<=", "value": 10000})
        with self.assertRaises(TypeError):
            hash(Param("x"))
        with self.assertRaises(TypeError):
            ConstraintSet(["amount <= 5"])

    def test_each_operator_is_decided_in_c(self) -> None:
        cases = [
            (Param("n") <= 10, {"n": 10}, {"n": 11}),
            (Param("n") < 10, {"n": 9.5}, {"n": 10}),
            (Param("n") > 0, {"n": 1}, {"n": 0}),
            (Param("n") >= 0, {"n": 0}, {"n": -1}),
            (Param("s") == "a", {"s": "a"}, {"s": "b"}),
            (Param("s") != "a", {"s": "b"}, {"s": "a"}),
            (Param("s").is_in(["a", "b"]), {"s": "b"}, {"s": "c"}),
            (Param("s").not_in(["a"]), {"s": "b"}, {"s": "a"}),
            (Param("p").starts_with("/api/"), {"p": "/api/x"}, {"p": "/etc"}),
            (Param("p").ends_with(".json"), {"p": "a.json"}, {"p": "a.js"}),
            (Param("p").contains("ab"), {"p": "xaby"}, {"p": "xy"}),
            (Param("p").exists(), {"p": 0}, {}),
            (Param("p").not_exists(), {}, {"p": 1}),
            (Param("body/items/0/id") == 7, {"body": {"items": [{"id": 7}]}}, {"body": {"items": []}}),
            (Param("/n") <= 1, {"n": 1}, {"n": 2}),
        ]
        for constraint, good, bad in cases:
            with self.subTest(str(constraint)):
                cap = ToolCallCap("t", ConstraintSet([constraint]))
                cap.validate_call("t", good)
                with self.assertRaises(capsa.ConstraintError):
                    cap.validate_call("t", bad)

    def test_validate_call_messages(self) -> None:
        cap = ToolCallCap("stripe/charges/*", ConstraintSet([Param("amount") <= 10000,
                                                             Param("currency").is_in(["USD"])]),
                          max_calls=100)
        cap.validate_call("stripe/charges/create", {"amount": 500, "currency": "USD"})
        with self.assertRaises(capsa.ViolationError) as cm:
            cap.validate_call("stripe/charges/create", {"amount": 50000, "currency": "USD"})
        e = cm.exception
        self.assertEqual(str(e), "Constraint violation: amount <= 10000, actual: 50000")
        self.assertEqual((e.param, e.rule, e.actual), ("amount", "<= 10000", "50000"))
        self.assertIn("failed: amount <= 10000 (got 50000)", e.policy_message)
        with self.assertRaises(capsa.MissingParamError) as missing:
            cap.validate_call("stripe/charges/create", {"currency": "USD"})
        self.assertEqual((missing.exception.param, str(missing.exception)),
                         ("amount", "Missing parameter: amount"))
        with self.assertRaises(capsa.TypeMismatchError) as mismatch:
            ToolCallCap("t", ConstraintSet([Param("path").starts_with("/api/")])).validate_call(
                "t", {"path": 7})
        self.assertEqual((mismatch.exception.param, mismatch.exception.expected,
                          mismatch.exception.actual), ("path", "string", "number"))
        with self.assertRaisesRegex(capsa.CapabilityError,
                                    r"No capability authorizes 'stripe\.refunds'\. "
                                    r"Granted: \['stripe\.charges\.\*'\]"):
            cap.validate_call("stripe/refunds", {})
        self.assertTrue(cap.allows("stripe/charges/x", {"amount": 1, "currency": "USD"}))
        with self.assertRaisesRegex(capsa.ConstraintError, "amount"):
            ConstraintSet([Param("amount") <= 5]).evaluate({"amount": 6})
        (Param("amount") <= 5).evaluate({"amount": 5})

    def test_patterns(self) -> None:
        self.assertTrue(capsa.method_matches_pattern("stripe/charges/create", "stripe/**"))
        # '.' is the canonical separator and '/' the same one written another way.
        self.assertFalse(capsa.method_matches_pattern("math.add", "*"))
        self.assertTrue(capsa.method_matches_pattern("math", "*"))
        self.assertTrue(capsa.method_matches_pattern("math.add", "math/*"))
        self.assertTrue(capsa.method_matches_pattern("math/add", "math.*"))
        self.assertTrue(capsa.method_matches_pattern("github.search_issues", "github.*"))
        self.assertFalse(capsa.method_matches_pattern("a/b/c", "a/*"))
        self.assertFalse(capsa.method_matches_pattern("a.b.c", "a/*"))
        self.assertTrue(capsa.method_matches_pattern("a.b/c", "a/**"))
        sub = capsa.pattern_is_subset
        self.assertTrue(sub("stripe/charges/create", "stripe/charges/*"))
        self.assertTrue(sub("stripe/charges/*", "stripe/**"))
        self.assertTrue(sub("stripe/**", "stripe/**"))
        self.assertTrue(sub("a/*/c", "a/**/c"))
        self.assertTrue(sub("**", "**"))
        self.assertFalse(sub("**", "stripe/**"))
        self.assertFalse(sub("github/**", "stripe/**"))
        self.assertFalse(sub("stripe/*", "stripe/charges"))
        self.assertFalse(sub("**/x", "*/**"), "true in fact, but unproven: conservative False")
        self.assertTrue(sub("stripe.charges.create", "stripe/charges/*"), "either separator")
        self.assertTrue(sub("stripe/charges/*", "stripe.**"))
        self.assertFalse(sub("stripe.charges", "stripe/charges/*"))

    def test_is_subset_of(self) -> None:
        parent = ToolCallCap("stripe/**", ConstraintSet([Param("amount") <= 1000,
                                                         Param("currency").is_in(["USD", "EUR"])]),
                             max_calls=100)
        good = ToolCallCap("stripe/charges/*", ConstraintSet([Param("amount") <= 500,
                                                              Param("currency") == "USD"]),
                           max_calls=50)
        self.assertTrue(good.is_subset_of(parent))
        self.assertFalse(parent.is_subset_of(good))
        cases = {
            "broader pattern": ToolCallCap("**", good.constraints, max_calls=5),
            "no budget under a budget": ToolCallCap("stripe/x", good.constraints),
            "bigger budget": ToolCallCap("stripe/x", good.constraints, max_calls=101),
            "looser constraint": ToolCallCap("stripe/x", ConstraintSet([
                Param("amount") <= 5000, Param("currency") == "USD"]), max_calls=1),
            "drops a parent constraint (amla would say yes)": ToolCallCap(
                "stripe/x", ConstraintSet([Param("amount") <= 5]), max_calls=1),
            "other parameter": ToolCallCap("stripe/x", ConstraintSet([
                Param("total") <= 5, Param("currency") == "USD"]), max_calls=1),
        }
        for why, child in cases.items():
            with self.subTest(why):
                self.assertFalse(child.is_subset_of(parent))
        tight = ToolCallCap("stripe/x", ConstraintSet([
            Param("amount") < 1000, Param("amount") > 0, Param("currency").is_in(["EUR"])]), max_calls=1)
        self.assertTrue(tight.is_subset_of(parent))
        either = ToolCallCap("a", ConstraintSet([capsa.Constraint.or_([Param("x") == 1, Param("x") == 2])]))
        self.assertTrue(either.is_subset_of(ToolCallCap("a", ConstraintSet([Param("x").is_in([1, 2, 3])]))))
        self.assertFalse(either.is_subset_of(ToolCallCap("a", ConstraintSet([Param("x") == 1]))))
        self.assertTrue(ToolCallCap("a", ConstraintSet([Param("p").starts_with("/api/v1/")])).is_subset_of(
            ToolCallCap("a", ConstraintSet([Param("p").starts_with("/api/")]))))

    def test_keys_and_serialisation(self) -> None:
        self.assertEqual(ToolCallCap("a/*").key(), "cap:tool-call:a/*")
        self.assertEqual(MethodCapability("a/*").key(), "cap:method:a/*")
        self.assertIsInstance(MethodCapability("x"), ToolCallCap)
        cap = ToolCallCap("a", ConstraintSet([Param("n") <= 3]), max_calls=2)
        self.assertEqual(ToolCallCap.from_dict(cap.to_dict()), cap)
        with self.assertRaises(TypeError):
            ToolCallCap("a", max_calls=-1)
        with self.assertRaises(TypeError):
            ToolCallCap("")


class SandboxPolicyTest(unittest.TestCase):
    def test_bare_sandbox_grants_nothing(self) -> None:
        with capsa.Sandbox(tools=[charge]) as sb:
            r = sb.run("try { await charge({amount: 1}) } catch (e) { return [e.code, e.message] }")
            self.assertEqual(r.value, ["permission_denied", "No capability authorizes 'charge'. Granted: []"])
            self.assertFalse(sb.can_call("charge", {"amount": 1}))

    def test_constraints_and_budget_enforced(self) -> None:
        caps = [ToolCallCap("charge", ConstraintSet([Param("amount") <= 100]), max_calls=2)]
        with capsa.Sandbox(tools=[charge], capabilities=caps) as sb:
            self.assertTrue(sb.can_call("charge", {"amount": 50}))
            self.assertEqual(sb.check_call("charge", {"amount": 500}),
                             (False, "'charge' matched 'charge' but failed: amount <= 100 (got 500)"))
            r = sb.run("const out = []; for (const amount of [50, 500, 60, 70]) { try { "
                       "out.push((await charge({amount})).charged) } catch (e) { out.push(e.message) } }"
                       " return out")
            self.assertEqual(r.value, [50, "'charge' matched 'charge' but failed: amount <= 100 (got 500)",
                                       60, "Call limit reached for 'charge': 2 of 2 used"])
            for key in ("cap:tool-call:charge", "cap:method:charge", "charge"):
                self.assertEqual(sb.get_remaining_calls(key), 0)
            self.assertEqual(sb.get_call_counts(), {"cap:tool-call:charge": 0})
            self.assertEqual(sb.call_counts(), [{"pattern": "charge", "max_calls": 2, "used": 2, "remaining": 0}])
            self.assertIsNone(sb.get_remaining_calls("cap:tool-call:unknown"))
            sb.reset_call_counts()
            self.assertEqual(sb.get_remaining_calls("charge"), 2)
            self.assertEqual(sb.get_capabilities(), caps)

    def test_budgets_last_across_runs(self) -> None:
        with capsa.Sandbox(tools=[charge], capabilities=[MethodCapability("charge", max_calls=1)]) as sb:
            sb.run("await charge({amount: 1})")
            r = sb.run("try { await charge({amount: 1}) } catch (e) { return e.message }")
            self.assertIn("Call limit reached", r.value)
            self.assertEqual(sb.get_call_counts(), {"cap:method:charge": 0})

    def test_policy_forms(self) -> None:
        policy = {"capabilities": [{"pattern": "charge", "constraints":
                                    [{"param": "amount", "op": "<", "value": 5}]}]}
        for form in (policy, json.dumps(policy), ["charge"], "charge", [{"pattern": "charge"}]):
            with self.subTest(form=form), capsa.Sandbox(tools=[charge], capabilities=form) as sb:
                self.assertTrue(sb.can_call("charge", {"amount": 1}))
        with capsa.Sandbox(tools=[charge], capabilities=[ToolCallCap("charge", max_calls=0)]) as sb:
            self.assertFalse(sb.can_call("charge", {"amount": 1}))
            self.assertEqual(sb.get_remaining_calls("charge"), 0)

    def test_bad_policies_raise_with_the_checker_message(self) -> None:
        with self.assertRaisesRegex(capsa.PolicyError, "charges\\*"):
            capsa.Sandbox(capabilities=["stripe/charges*"])
        with self.assertRaisesRegex(capsa.PolicyError, "unknown constraint type"):
            capsa.Sandbox(capabilities=[ToolCallCap("a", ConstraintSet([capsa.Constraint(type="lte", param="x")]))])  # type: ignore[arg-type]
        with self.assertRaisesRegex(capsa.PolicyError, "not JSON"):
            capsa.Sandbox(capabilities=[ToolCallCap("a", ConstraintSet([Param("x") == {1}]))])
        with self.assertRaises(ValueError):
            capsa.Sandbox(capabilities={"caps": []})
        with self.assertRaises(TypeError):
            capsa.Sandbox().can_call("x", params=["not", "a", "dict"])  # type: ignore[arg-type]


if __name__ == "__main__":
    unittest.main()
