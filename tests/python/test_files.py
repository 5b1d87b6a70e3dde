"""The files API: read/write/list/stat/remove, errors as OSErrors, mounts, tar, quotas."""

from __future__ import annotations

import io
import tarfile
import tempfile
import unittest
from pathlib import Path

import capsa


class FilesTest(unittest.TestCase):
    def setUp(self) -> None:
        self.sb = capsa.Sandbox()
        self.fs = self.sb.files

    def tearDown(self) -> None:
        self.sb.close()

    def test_host_and_script_see_the_same_files(self) -> None:
        self.fs.write("/workspace/in/data.txt", "héllo")
        self.fs.write("bytes.bin", b"\x00\x01\xff")
        self.fs.write_json("/tmp/cfg.json", {"n": 3})
        r = self.sb.run("const t = await fs.readFile('in/data.txt', 'utf8');"
                        "const b = await fs.readFile('/workspace/bytes.bin');"
                        "await fs.writeFile('/workspace/out.txt', t.toUpperCase());"
                        "return [t, Array.from(b), JSON.parse(await fs.readFile('/tmp/cfg.json', 'utf8')).n]")
        self.assertEqual(r.value, ["héllo", [0, 1, 255], 3])
        self.assertEqual(self.fs.read("/workspace/out.txt"), "HÉLLO".encode())
        self.assertEqual(self.fs.read_text("out.txt"), "HÉLLO")

    def test_list_stat_exists_mkdir_remove(self) -> None:
        self.fs.mkdir("/workspace/d/e")
        self.fs.write("/workspace/d/b.txt", "12345")
        self.fs.write("/workspace/d/a.txt", "1")
        entries = self.fs.list("/workspace/d")
        self.assertEqual([(e.name, e.type) for e in entries], [("a.txt", "file"), ("b.txt", "file"), ("e", "directory")])
        st = self.fs.stat("/workspace/d/b.txt")
        self.assertEqual((st.size, st.is_file, st.guest_writable), (5, True, True))
        self.assertFalse(self.fs.stat("/tools").guest_writable)
        self.assertTrue(self.fs.exists("/workspace/d/e"))
        self.assertFalse(self.fs.exists("/workspace/nope"))
        with self.assertRaises(capsa.DirectoryNotEmptyError) as cm:
            self.fs.remove("/workspace/d")
        self.assertIn("/workspace/d", str(cm.exception))
        self.fs.remove("/workspace/d", recursive=True)
        self.assertEqual(self.fs.listdir("/workspace"), [])

    def test_errors_are_oserrors_with_the_library_message(self) -> None:
        with self.assertRaises(FileNotFoundError) as cm:
            self.fs.read("/workspace/missing.txt")
        self.assertIsInstance(cm.exception, capsa.FilesError)
        self.assertIn("/workspace/missing.txt", str(cm.exception))
        self.assertEqual(cm.exception.errno, 2)
        with self.assertRaises(IsADirectoryError):
            self.fs.read("/workspace")
        self.fs.write("/workspace/f", "x")
        with self.assertRaises(NotADirectoryError):
            self.fs.list("/workspace/f")
        with self.assertRaises(capsa.InvalidArgument):
            self.fs.remove("/workspace")
        with self.assertRaises(TypeError):
            self.fs.write("/workspace/x", 42)  # type: ignore[arg-type]
        with self.assertRaises(TypeError):
            self.fs.read(None)  # type: ignore[arg-type]

    def test_the_log_is_append_only_for_the_script(self) -> None:
        r = self.sb.run("try { await fs.writeFile('/log/x', 'y') } catch (e) { return e.code }")
        self.assertEqual(r.value, "EPERM")

    def test_host_writes_are_not_led_by_the_scripts_symlinks(self) -> None:
        self.fs.write("/log/actions.jsonl", "trail\n")
        self.sb.run("fs.symlinkSync('/log/actions.jsonl', '/workspace/task.txt');"
                    "fs.symlinkSync('/tools', '/workspace/tl');"
                    "fs.symlinkSync('/tmp/mine.txt', '/workspace/mine.txt')")
        with self.assertRaises(capsa.InvalidArgument) as cm:
            self.fs.write("/workspace/task.txt", "the next task")
        self.assertIn("symlink", str(cm.exception))
        with self.assertRaises(capsa.InvalidArgument):
            self.fs.write("/workspace/tl/evil.d.ts", "declare")
        trail = self.fs.read_text("/log/actions.jsonl")
        self.assertTrue(trail.startswith("trail\n"))
        self.assertNotIn("the next task", trail)
        self.assertFalse(self.fs.exists("/tools/evil.d.ts"))
        self.fs.write("/workspace/mine.txt", "fine")
        self.assertEqual(self.fs.read_text("/tmp/mine.txt"), "fine")
        self.fs.remove("/workspace/task.txt")
        self.assertEqual(self.fs.read_text("/log/actions.jsonl"), trail)

    def test_tar_round_trip_and_bad_archives(self) -> None:
        self.fs.write("/workspace/a/b.txt", "inside")
        data = self.fs.export_tar("/workspace")
        with tarfile.open(fileobj=io.BytesIO(data)) as tf:
            self.assertIn("a/b.txt", tf.getnames())
        with capsa.Sandbox() as other:
            other.files.import_tar("/workspace/copy", data)
            self.assertEqual(other.files.read_text("/workspace/copy/a/b.txt"), "inside")
        buf = io.BytesIO()
        with tarfile.open(fileobj=buf, mode="w") as tf:
            info = tarfile.TarInfo("../../escape.txt")
            info.size = 1
            tf.addfile(info, io.BytesIO(b"x"))
        with self.assertRaises(capsa.InvalidArgument):
            self.fs.import_tar("/workspace/t", buf.getvalue())
        self.assertFalse(self.fs.exists("/escape.txt"))

    def test_mounts_and_copy_out(self) -> None:
        with tempfile.TemporaryDirectory() as tmp:
            ro, rw, out = Path(tmp, "ro"), Path(tmp, "rw"), Path(tmp, "out")
            ro.mkdir()
            rw.mkdir()
            (ro / "ref.txt").write_text("reference")
            (rw / "old.txt").write_text("old")
            with capsa.Sandbox(mounts=[capsa.Mount(ro, "/data"), (str(rw), "/workspace/rw", "rw")]) as sb:
                r = sb.run("const t = await fs.readFile('/data/ref.txt', 'utf8');"
                           "let code = null; try { await fs.writeFile('/data/x', '1') } catch (e) { code = e.code }"
                           "await fs.writeFile('/workspace/rw/new.txt', 'new'); await fs.rm('/workspace/rw/old.txt');"
                           "return [t, code]")
                self.assertEqual(r.value, ["reference", "EROFS"])
                self.assertEqual((rw / "new.txt").read_text(), "new", "written back after the run")
                self.assertFalse((rw / "old.txt").exists())
                sb.files.copy_out("/workspace/rw", out)
                self.assertEqual((out / "new.txt").read_text(), "new")
            with self.assertRaises(FileNotFoundError):
                capsa.Sandbox(mounts={"/data": str(Path(tmp, "missing"))})

    def test_quota(self) -> None:
        with capsa.Sandbox(limits={"fs_max_bytes": 4096}) as sb:
            with self.assertRaises(capsa.QuotaExceeded):
                sb.files.write("/workspace/big", b"x" * 10000)
            r = sb.run("try { await fs.writeFile('big', 'x'.repeat(10000)) } catch (e) { return e.code }")
            self.assertIn(r.value, ("ENOSPC", "EDQUOT"))


if __name__ == "__main__":
    unittest.main()
