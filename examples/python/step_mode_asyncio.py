"""Step mode with asyncio: async tools run as tasks on your event loop, concurrently.

`async def` tools are registered without a C callback: when the script waits for them
the library returns to Python (step mode), `run_async` runs the pending calls as
asyncio tasks, settles them and resumes the script; the library's blocking work runs
in the loop's executor, so the loop keeps serving other work (here: three sandboxes at
once). Run: python3 examples/python/step_mode_asyncio.py (after `make python`).
"""

from __future__ import annotations

import asyncio
import time

import _path  # noqa: F401 - the in-repo package

import capsa


async def fetch_price(symbol: str) -> dict:
    """Fetch a stock price (simulated: 100 ms of network latency).

    Args:
        symbol: the ticker symbol.
    """
    await asyncio.sleep(0.1)
    return {"symbol": symbol, "price": sum(map(ord, symbol)) / 10}


SCRIPT = """
const symbols = ["AAPL", "MSFT", "GOOG", "AMZN", "NVDA", "META", "TSLA", "ORCL", "IBM", "SAP"];
const quotes = await Promise.all(symbols.map(symbol => fetch_price({symbol})));
setTimeout(() => console.log("timers keep working between steps"), 10);
await new Promise(r => setTimeout(r, 20));
return quotes.reduce((best, q) => q.price > best.price ? q : best);
"""


async def one(name: str) -> None:
    with capsa.Sandbox(tools=[fetch_price], capabilities=["fetch_price"]) as sb:
        t = time.monotonic()
        result = await sb.run_async(SCRIPT)
        print(f"{name}: best {result.value} after {result.stats.tool_calls} calls "
              f"in {time.monotonic() - t:.2f}s; stdout: {result.stdout.strip()!r}")


async def main() -> None:
    t = time.monotonic()
    await asyncio.gather(one("agent-1"), one("agent-2"), one("agent-3"))
    print(f"3 sandboxes x 10 calls of 100 ms: {time.monotonic() - t:.2f}s in all")


if __name__ == "__main__":
    asyncio.run(main())
