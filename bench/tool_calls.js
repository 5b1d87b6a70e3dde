// A tool-heavy agent script, for capsa only (no reference engine has capsa's tools):
// 1,000 awaited calls of a synchronous host tool (`lookup`, which answers
// {"ok": true, "echo": ARGS}) with small JSON arguments, each result used. The
// script checks every result and its total, and throws if one is wrong. A block, as
// the same sandbox runs it again.
{
    let total = 0;
    for (let i = 0; i < 1000; i++) {
        const r = await lookup({ id: i, query: `user ${i}`, fields: ['name', 'email'], limit: 5 });
        if (!r.ok || r.echo.id !== i || r.echo.query !== `user ${i}` || r.echo.fields.length !== 2)
            throw new Error(`tool_calls: call ${i} returned ${JSON.stringify(r)}`);
        total += r.echo.query.length + r.echo.limit;
    }
    if (total !== 5000 + 1000 * 5 + 10 * 1 + 90 * 2 + 900 * 3)
        throw new Error(`tool_calls: wrong total ${total}`);
    return total;
}
