"""The interactive capsa shell on a terminal (a pseudo-terminal): line editing and
history, a command line continued over several lines, a libedit that cannot be
loaded (libedit is loaded when the shell is on a terminal) leaving plain lines, Ctrl-C stopping the running
command and dropping a half-typed line without ending the shell, the history kept in
CAPSA_HISTFILE, and the exit status of `exit N`. Prints each check and "N passed, N
failed" last.

    python3 tests/repl/repl.py BUILD/capsa
"""
import os
import pty
import select
import subprocess
import sys
import tempfile
import time

capsa = sys.argv[1]
passed = failed = 0


def check(what, ok, detail=""):
    global passed, failed
    if ok:
        passed += 1
        print(f"ok: {what}")
    else:
        failed += 1
        print(f"FAIL: {what}")
        if detail != "":
            print("    " + repr(detail))


class Term:
    """capsa shell on a pseudo-terminal."""

    def __init__(self, env):
        self.pid, self.fd = pty.fork()
        if self.pid == 0:
            os.execve(capsa, [capsa, "shell", "--timeout", "20"], env)
        self.seen = b""

    def read_until(self, needle, timeout=10.0):
        """Output until needle appears (bytes); all of it."""
        end = time.time() + timeout
        got = b""
        while time.time() < end and needle not in got:
            r, _, _ = select.select([self.fd], [], [], 0.05)
            if r:
                try:
                    chunk = os.read(self.fd, 4096)
                except OSError:
                    break
                if not chunk:
                    break
                got += chunk
        self.seen += got
        return got

    def send(self, data):
        os.write(self.fd, data)

    def wait(self, timeout=30.0, kill=True):
        """The exit status, or None after timeout (the shell killed, unless kill
        is false)."""
        end = time.time() + timeout
        while time.time() < end:
            pid, status = os.waitpid(self.pid, os.WNOHANG)
            if pid:
                return os.WEXITSTATUS(status) if os.WIFEXITED(status) else -1
            time.sleep(0.05)
        if not kill:
            return None
        os.kill(self.pid, 9)
        os.waitpid(self.pid, 0)
        return None


tmp = tempfile.mkdtemp()
hist = os.path.join(tmp, "history")
env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "TERM": "xterm", "HOME": tmp,
       "CAPSA_HISTFILE": hist}

t = Term(env)
out = t.read_until(b"$ ")
check("a prompt on the terminal", out.endswith(b"$ "), out)

t.send(b"echo one\r")
out = t.read_until(b"one\r\n$ ")
check("a command line runs", b"one\r\n" in out, out)

t.send(b"\x1b[A\r")  # up arrow: the last line again
out = t.read_until(b"one\r\n$ ")
check("the up arrow recalls the last command line", out.count(b"one") >= 2, out)

t.send(b"echo abX\x7fc\r")  # a backspace edits the line
out = t.read_until(b"abc\r\n$ ")
check("a backspace edits the line", b"abc\r\n" in out and b"abX" not in out.split(b"\r\n")[-2], out)

t.send(b"if true; then\r")
out = t.read_until(b"> ")
check("an open if continues on a second prompt", out.endswith(b"> "), out)
t.send(b"echo inside\r")
out = t.read_until(b"> ")
t.send(b"fi\r")
out = t.read_until(b"inside\r\n$ ")
check("the command line runs once complete, without a parse error",
      b"inside\r\n" in out and b"unexpected" not in t.seen, t.seen)

t.send(b"echo 'open\r")
t.read_until(b"> ")
t.send(b"quote'\r")
out = t.read_until(b"quote\r\n$ ")
check("an open quote continues, the newline kept", b"open\r\nquote" in out, out)

t.send(b"js -e 'while (true) {}'\r")
time.sleep(1.0)
t.send(b"\x03")
out = t.read_until(b"interrupted", timeout=10)
out += t.read_until(b"$ ", timeout=10)
check("Ctrl-C stops the running command and the shell goes on",
      b"interrupted" in out and out.endswith(b"$ "), out)

t.send(b"echo half-typed")
time.sleep(0.3)
t.send(b"\x03")
out = t.read_until(b"$ ")
t.send(b"echo after\r")
out = t.read_until(b"after\r\n$ ")
check("Ctrl-C drops the half-typed line", b"after\r\n" in out and b"half-typed\r\nhalf" not in t.seen,
      t.seen[-300:])

t.send(b"exit 7\r")
status = t.wait()
check("exit 7 ends the shell with status 7", status == 7, status)
try:
    with open(hist, "rb") as f:
        kept = f.read()
except OSError as e:
    kept = str(e).encode()
# libedit's format: one line each, spaces and newlines escaped (\040, \012).
check("the history file keeps the command lines",
      b"echo\\040one" in kept and b"then\\012echo" in kept, kept)

t = Term(env)
t.read_until(b"$ ")
t.send(b"\x1b[A\r")  # a new shell recalls the last session's last line: exit 7
t.read_until(b"exit 7", timeout=5)
status = t.wait()
check("a new shell recalls the history file (exit 7 again)", status == 7 and b"exit 7" in t.seen,
      (status, t.seen))

t = Term(env)
t.read_until(b"$ ")
t.send(b"false\r")
t.read_until(b"false\r\n$ ")
# Ctrl-D: the end of input. One typed while the line editor sets the terminal up
# for the next line can be flushed with the terminal's pending input (a loaded
# machine widens that moment): typed again then, as a user would.
status = None
for _ in range(6):
    t.send(b"\x04")
    status = t.wait(timeout=5, kill=False)
    if status is not None:
        break
if status is None:
    status = t.wait(timeout=1)
check("Ctrl-D ends the shell with the last command line's status", status == 1, status)

# A libedit.so.2 without its functions first on the library path: the shell says
# it has no line editing, and still reads and runs command lines after a prompt.
fake = os.path.join(tmp, "lib")
os.mkdir(fake)
built = subprocess.run(["cc", "-shared", "-x", "c", "/dev/null", "-o", os.path.join(fake, "libedit.so.2")],
                       capture_output=True, text=True)
check("an empty libedit.so.2 is built", built.returncode == 0, built.stderr)
t = Term(dict(env, LD_LIBRARY_PATH=fake))
out = t.read_until(b"$ ")
check("without libedit the shell says so, naming it",
      b"no line editing or history: libedit.so.2 has no function readline" in out, out)
check("and prompts", out.endswith(b"$ "), out)
t.send(b"echo plain\r")
out = t.read_until(b"plain\r\n$ ")
check("a command line runs without line editing", b"plain\r\n" in out, out)
t.send(b"exit 3\r")
status = t.wait(timeout=10)
check("exit 3 ends it with status 3", status == 3, status)

print(f"{passed} passed, {failed} failed")
sys.exit(1 if failed else 0)
