"""A plain agent loop: a model writes JavaScript, capsa runs it, the output goes back.

The "model" here is scripted (no network, no API key): it answers each observation with
the next piece of code, as an LLM in code mode would. Replace `scripted_model` with a
call to your LLM. Run: python3 examples/python/agent_loop.py (after `make python`).
"""

from __future__ import annotations

import json

import _path  # noqa: F401 - the in-repo package

import capsa
from capsa import ConstraintSet, Param, ToolCallCap

ORDERS = {
    "A-100": {"customer": "ada", "amount": 120, "status": "delivered"},
    "A-101": {"customer": "ada", "amount": 4500, "status": "damaged"},
    "A-102": {"customer": "bob", "amount": 80, "status": "damaged"},
}
REFUNDS: list[dict] = []


def list_orders(customer: str) -> list[dict]:
    """List a customer's orders.

    Args:
        customer: the customer's id.
    """
    return [{"id": k, **v} for k, v in ORDERS.items() if v["customer"] == customer]


def refund(order_id: str, amount: int) -> dict:
    """Refund an order.

    Args:
        order_id: the order's id.
        amount: the amount to refund, in dollars.
    """
    REFUNDS.append({"order_id": order_id, "amount": amount})
    return {"ok": True, "refund_id": f"R-{len(REFUNDS)}"}


# The model's turns: each is code to run; the last one answers in plain text.
TURNS = [
    # 1. Look around: the model finds the damaged orders with one script, many calls.
    """
    const orders = await list_orders({customer: "ada"});
    const damaged = orders.filter(o => o.status === "damaged");
    console.log(JSON.stringify(damaged));
    """,
    # 2. Try to refund everything: the policy caps refunds at 1000, checked on the host.
    """
    const results = [];
    for (const o of [{id: "A-101", amount: 4500}]) {
      try { results.push(await refund({order_id: o.id, amount: o.amount})); }
      catch (e) { results.push({error: e.code, message: e.message}); }
    }
    console.log(JSON.stringify(results));
    """,
    # 3. Adapt to the refusal: refund the allowed maximum and say so.
    """
    const r = await refund({order_id: "A-101", amount: 1000});
    console.log(JSON.stringify(r));
    """,
]


def scripted_model(history: list[dict]) -> dict:
    """Stands in for an LLM: returns {"code": ...} or {"answer": ...}."""
    step = sum(1 for h in history if h["role"] == "tool")
    if step < len(TURNS):
        return {"code": TURNS[step]}
    return {"answer": "Refunded 1000 of order A-101 (refunds over 1000 need a human)."}


def main() -> None:
    caps = [
        ToolCallCap("list_orders"),
        ToolCallCap("refund", constraints=ConstraintSet([Param("amount") <= 1000]), max_calls=3),
    ]
    with capsa.Sandbox(tools=[list_orders, refund], capabilities=caps,
                       limits={"timeout_ms": 5000}) as sandbox:
        history: list[dict] = [{"role": "user", "content": "Refund ada's damaged order."}]
        while True:
            reply = scripted_model(history)
            if "answer" in reply:
                print("answer:", reply["answer"])
                break
            try:
                result = sandbox.run(reply["code"])
                observation = result.stdout.strip() or json.dumps(result.value)
                if result.error:
                    observation += f"\n{result.error}"
            except capsa.LimitExceeded as exc:
                observation = f"the code was stopped: {exc}"
            print(f"observation: {observation}")
            history.append({"role": "tool", "content": observation})
        print("refunds made:", REFUNDS)
        print("refund calls left:", sandbox.get_remaining_calls("refund"))
        denied = [e.data for e in sandbox.get_audit_entries("tool_call")
                  if e.data["decision"] == "denied"]
        print("denied calls in the audit log:", [d["reason"] for d in denied])


if __name__ == "__main__":
    main()
