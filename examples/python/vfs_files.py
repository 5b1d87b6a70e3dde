"""File exchange with the sandbox's virtual filesystem.

The host puts input in (files API and a read-only mount of a host directory), the
script works with Node's fs API, and the host takes the results out (read, tar export,
copy-out). Nothing of the host is visible to the script but what was copied in.
Run: python3 examples/python/vfs_files.py (after `make python`).
"""

from __future__ import annotations

import io
import tarfile
import tempfile
from pathlib import Path

import _path  # noqa: F401 - the in-repo package

import capsa


def main() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        host_in = Path(tmp) / "reference"
        host_in.mkdir()
        (host_in / "prices.json").write_text('{"apple": 0.5, "pear": 0.75, "fig": 2}')
        with capsa.Sandbox(mounts=[capsa.Mount(host_in, "/data")]) as sb:
            sb.files.write("/workspace/orders.csv", "item,qty\napple,4\npear,2\nfig,3\n")
            result = sb.run("""
                const prices = JSON.parse(await fs.readFile("/data/prices.json", "utf8"));
                const rows = (await fs.readFile("orders.csv", "utf8")).trim().split("\\n").slice(1);
                const lines = rows.map(r => r.split(",")).map(([item, qty]) =>
                    ({item, qty: +qty, total: +qty * prices[item]}));
                await fs.mkdir("/workspace/out", {recursive: true});
                await fs.writeFile("/workspace/out/report.json", JSON.stringify(lines, null, 2));
                try { await fs.writeFile("/data/prices.json", "{}"); }
                catch (e) { console.log("the mount is read-only:", e.code); }
                return lines.reduce((s, l) => s + l.total, 0);
            """)
            print("total:", result.value, "|", result.stdout.strip())
            print("files:", [(f.name, f.type, f.size) for f in sb.files.list("/workspace/out")])
            print("report:", sb.files.read_json("/workspace/out/report.json"))
            tar = sb.files.export_tar("/workspace")
            with tarfile.open(fileobj=io.BytesIO(tar)) as tf:
                print("tar members:", sorted(tf.getnames()))
            host_out = Path(tmp) / "results"
            sb.files.copy_out("/workspace/out", host_out)
            print("copied out:", sorted(p.name for p in host_out.iterdir()))
            try:
                sb.files.read("/etc/passwd")
            except FileNotFoundError as exc:
                print("no host files inside:", exc)


if __name__ == "__main__":
    main()
