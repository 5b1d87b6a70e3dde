"""SQLite databases made in the sandbox, read on the host: the bytes that the files API
gives are a database that Python's own sqlite3 opens, and one Python makes opens in the
sandbox."""

from __future__ import annotations

import sqlite3
import tempfile
import unittest
from pathlib import Path

import capsa


class SqliteFilesTest(unittest.TestCase):
    def setUp(self) -> None:
        self.sb = capsa.Sandbox()

    def tearDown(self) -> None:
        self.sb.close()

    def test_python_opens_the_guests_database(self) -> None:
        r = self.sb.run(
            "const { DatabaseSync } = require('node:sqlite');"
            "const db = new DatabaseSync('/workspace/sales.db');"
            "db.exec('create table sales(region text, amount real)');"
            "const ins = db.prepare('insert into sales values (?, ?)');"
            "for (const [r, a] of [['north', 10.5], ['south', 4], ['north', 1.5]]) ins.run(r, a);"
            "db.close(); return 'done'")
        self.assertEqual(r.value, "done")
        data = self.sb.files.read("/workspace/sales.db")
        self.assertEqual(data[:16], b"SQLite format 3\x00")
        with tempfile.TemporaryDirectory() as tmp:
            path = Path(tmp) / "sales.db"
            path.write_bytes(data)
            con = sqlite3.connect(path)
            try:
                rows = con.execute("select region, sum(amount) from sales group by region order by region").fetchall()
                self.assertEqual(con.execute("pragma integrity_check").fetchone()[0], "ok")
            finally:
                con.close()
        self.assertEqual(rows, [("north", 12.0), ("south", 4.0)])

    def test_the_guest_opens_pythons_database(self) -> None:
        with tempfile.TemporaryDirectory() as tmp:
            path = Path(tmp) / "made.db"
            con = sqlite3.connect(path)
            con.execute("create table t(k text primary key, v integer)")
            con.executemany("insert into t values (?, ?)", [("a", 1), ("b", 2)])
            con.commit()
            con.close()
            self.sb.files.write("/workspace/made.db", path.read_bytes())
        r = self.sb.run(
            "const Database = require('better-sqlite3');"
            "const db = new Database('/workspace/made.db', { readonly: true, fileMustExist: true });"
            "return db.prepare('select k, v from t order by k').raw().all()")
        self.assertEqual(r.value, [["a", 1], ["b", 2]])

    def test_sqlite_errors_reach_python(self) -> None:
        r = self.sb.run("const Database = require('better-sqlite3'); new Database(':memory:').exec('selec 1')")
        self.assertIsNotNone(r.error)
        self.assertEqual((r.error.name, r.error.code, r.error.message),
                         ("SqliteError", "SQLITE_ERROR", 'near "selec": syntax error'))


if __name__ == "__main__":
    unittest.main()
