"""Runs every fenced code block of README.md and docs/*.md (not docs/man), and checks
every relative link and anchor of those pages. tests/docs/run.sh runs it; it prints one
line per check ("ok ..." or "FAIL ...") and ends with "N passed, N failed".

How a block is run, by its language:
  sh      bash -e, in a fresh temporary directory where build/ is the build directory,
          examples/ and tests/ the repository's, HOME the directory itself, stdin empty.
  c       compiled against include/ and BUILD/libcapsa.a with the libraries `make` links
          (make print-host-libs), then run; it must exit 0 and print nothing on stderr.
  js      written to example.js and run by `build/capsa run example.js`.
  python  run by python3 with the repository's package (PYTHONPATH=python,
          CAPSA_LIBRARY=BUILD/libcapsa.so); sh blocks get the same environment.
Every block must exit 0 within two minutes.

What a block prints is compared where the page says it:
  - a line "# => TEXT" in a sh block says that the commands since the previous such line
    (or the block's start) print TEXT on stdout; consecutive lines are lines of it;
  - a block annotated <!-- example: output of the block above --> (on the line before
    its fence) is the whole stdout of the block before it.
In both, "..." stands for any text (what varies: times, sizes), and trailing newlines
are not compared.

Other annotations, on the line before a fence:
  <!-- example: not run — REASON -->   the block is not run; listed with its reason.
  <!-- example: run with OPTIONS -->    a js block is run as `build/capsa run OPTIONS
                                         example.js` (shell words; tests/docs/ holds the
                                         fixtures such options name).
  <!-- example: C fragment -->          a c block of statements (and functions before
                                         them) is compiled inside a main() that made
                                         `engine` and `sb` and frees them after; the
                                         fragment may use `my_search`, a tool callback
                                         that answers [], and `policy_json`/`policy_len`,
                                         a policy allowing github.*.
  <!-- example: a policy -->            a json block is loaded by capsa run --policy.
  <!-- example: an audit line -->       a json block has the fields of a real audit
                                         line of a tool call, no more and no fewer.
A text block that is no block's output is a diagram: counted, not run. A block of
another language, or without one, or a json block without an annotation, fails.
"""

import json
import os
import re
import shlex
import subprocess
import sys
import tempfile

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
BUILD = os.environ.get("BUILD", "build")
BUILD = BUILD if os.path.isabs(BUILD) else os.path.join(ROOT, BUILD)
TIMEOUT = 120
ANNOT = re.compile(r"^<!-- example: (.*?) -->\s*$")
FENCE = re.compile(r"^```(\S*)\s*$")

passed = 0
failed = 0
not_run = []
diagrams = 0


def ok(what):
    global passed
    passed += 1
    print("ok " + what)


def bad(what, detail=""):
    global failed
    failed += 1
    print("FAIL " + what)
    if detail:
        for line in detail.rstrip("\n").split("\n")[:30]:
            print("    " + line)


def pages():
    out = [os.path.join(ROOT, "README.md")]
    docs = os.path.join(ROOT, "docs")
    out += sorted(os.path.join(docs, f) for f in os.listdir(docs) if f.endswith(".md"))
    return out


def blocks(path):
    """The fenced blocks of a page: dicts of line (the fence's), lang, text, annotation."""
    lines = open(path, encoding="utf-8").read().split("\n")
    out = []
    i = 0
    while i < len(lines):
        m = FENCE.match(lines[i])
        if not m:
            i += 1
            continue
        start = i
        j = i + 1
        while j < len(lines) and lines[j] != "```":
            j += 1
        prev = lines[start - 1] if start > 0 else ""
        a = ANNOT.match(prev)
        out.append({"line": start + 1, "lang": m.group(1), "text": "\n".join(lines[start + 1:j]) + "\n",
                    "annot": a.group(1) if a else None})
        i = j + 1
    return out


def matches(expected, got):
    """True when got (trailing newlines aside) is expected, "..." in it standing for any text."""
    pattern = ".*?".join(re.escape(p) for p in expected.rstrip("\n").split("..."))
    return re.fullmatch(pattern, got.rstrip("\n"), re.DOTALL) is not None


def workdir():
    d = tempfile.mkdtemp(prefix="capsa-docs-")
    os.symlink(BUILD, os.path.join(d, "build"))
    for name in ("examples", "tests"):
        os.symlink(os.path.join(ROOT, name), os.path.join(d, name))
    return d


def sanitizer_runtimes():
    """The sanitizer runtimes libcapsa.so links (make test-sanitize), or "": a Python
    that loads such a library needs them loaded first, as tests/python/run.sh does."""
    try:
        out = subprocess.run(["ldd", os.path.join(BUILD, "libcapsa.so")], capture_output=True,
                             text=True).stdout
    except OSError:
        return ""
    return " ".join(line.split()[2] for line in out.splitlines()
                    if re.search(r"lib(asan|ubsan)", line) and len(line.split()) > 2)


SANITIZER_RUNTIMES = sanitizer_runtimes()


def environment(d):
    env = dict(os.environ)
    env["HOME"] = d
    if SANITIZER_RUNTIMES:
        # Every process of an example then runs with them (python3, and the shell
        # and tools of sh blocks): leaks of those programs are not ours to report.
        env["LD_PRELOAD"] = SANITIZER_RUNTIMES + (" " + env["LD_PRELOAD"] if env.get("LD_PRELOAD") else "")
        env["ASAN_OPTIONS"] = (env.get("ASAN_OPTIONS", "") + ":detect_leaks=0").lstrip(":")
    env["CAPSA_LIBRARY"] = os.path.join(BUILD, "libcapsa.so")
    env["PYTHONPATH"] = os.path.join(ROOT, "python") + (":" + env["PYTHONPATH"] if env.get("PYTHONPATH") else "")
    return env


def run(argv, d, what, quiet=False):
    """Runs argv in d; returns its stdout, or None after reporting the failure (a non-zero
    exit status, or with quiet, anything on stderr)."""
    try:
        p = subprocess.run(argv, cwd=d, env=environment(d), stdin=subprocess.DEVNULL,
                           capture_output=True, timeout=TIMEOUT)
    except subprocess.TimeoutExpired:
        bad(what, "did not end within %d s" % TIMEOUT)
        return None
    out = p.stdout.decode("utf-8", "replace")
    if p.returncode != 0 or (quiet and p.stderr):
        bad(what, "exit status %d\nstdout:\n%s\nstderr:\n%s" % (p.returncode, out, p.stderr.decode("utf-8", "replace")))
        return None
    return out


def sh_script(text):
    """The block as a script that saves each "# =>"-checked part's stdout in $1/N, and
    the expectations, in order."""
    lines = text.rstrip("\n").split("\n")
    script = ["set -e"]
    expect = []
    part = []
    k = 0
    while k < len(lines):
        if lines[k].startswith("# =>"):
            want = []
            while k < len(lines) and lines[k].startswith("# =>"):
                want.append(lines[k][5:] if lines[k].startswith("# => ") else lines[k][4:])
                k += 1
            script += ["{"] + part + ['} >"$1/%d"' % len(expect)]
            expect.append("\n".join(want))
            part = []
            continue
        part.append(lines[k])
        k += 1
    script += part
    return "\n".join(script) + "\n", expect


_libs = None


def host_libs():
    global _libs
    if _libs is None:
        args = ["make", "-s", "--no-print-directory", "-C", ROOT, "BUILD=" + BUILD, "print-host-libs"]
        if os.environ.get("CAPSA_TEST_SANITIZED"):
            args.append("SANITIZE=1")
        env = dict(os.environ)
        env.pop("MAKEFLAGS", None)
        env.pop("MFLAGS", None)
        _libs = subprocess.run(args, capture_output=True, text=True, env=env).stdout.split()
    return _libs


C_PRELUDE = """#include <stdio.h>
#include <string.h>
#include "capsa.h"

/* A tool callback for the fragments: answers an empty array. */
static void my_search(void *ud, const capsa_tool_call *call, capsa_tool_reply *reply)
{
    (void)ud;
    (void)call;
    capsa_tool_reply_json(reply, "[]", 2);
}
static const char policy_json[] = "{\\"capabilities\\": [{\\"pattern\\": \\"github.*\\"}]}";
static const size_t policy_len = sizeof(policy_json) - 1;
"""


def c_fragment(text):
    """A fragment as a program: its functions at file scope, its statements in main()."""
    lines = text.rstrip("\n").split("\n")
    funcs, body = [], []
    k = 0
    while k < len(lines):
        l = lines[k]
        if re.match(r"^[A-Za-z_].*\)\s*$", l) and k + 1 < len(lines) and lines[k + 1] == "{":
            while k < len(lines) and lines[k] != "}":
                funcs.append(lines[k])
                k += 1
            funcs.append("}")
            k += 1
            continue
        body.append(l)
        k += 1
    return (C_PRELUDE + "\n".join(funcs) + "\n\nint main(void)\n{\n"
            "    capsa_engine *engine;\n    capsa_sandbox *sb;\n"
            "    if (capsa_engine_new(NULL, &engine) != CAPSA_OK || capsa_sandbox_new(engine, NULL, &sb) != CAPSA_OK)\n"
            "        return 1;\n    (void)my_search;\n    (void)policy_len;\n"
            "    {\n" + "\n".join(body) + "\n    }\n"
            "    capsa_sandbox_free(sb);\n    capsa_engine_free(engine);\n    return 0;\n}\n")


def audit_fields(d):
    """The fields of a real tool_call audit line (a math.add tool, allowed, called once)."""
    out = run([os.path.join(d, "build", "capsa"), "run", "--tools", "tests/docs/tools.json",
               "--allow", "math.add", "--audit", "audit.jsonl", "-e", "return await tools.math.add({a: 1, b: 2})"],
              d, "the audit line of a real call")
    if out is None:
        return None
    for line in open(os.path.join(d, "audit.jsonl")):
        o = json.loads(line)
        if o.get("event") == "tool_call":
            return set(o)
    return set()


def run_block(page, b, following):
    """Runs one block; following is the block after it (its output, when annotated so)."""
    global diagrams
    where = "%s:%d" % (os.path.relpath(page, ROOT), b["line"])
    what = "%s %s" % (where, b["lang"] or "(no language)")
    annot = b["annot"] or ""
    if annot.startswith("not run"):
        reason = re.sub(r"^not run\s*[—-]+\s*", "", annot)
        not_run.append("%s: %s" % (what, reason))
        return
    if annot == "output of the block above":
        return  # compared with the block above
    if b["lang"] == "text":
        diagrams += 1
        return
    expected = following["text"] if following and following["annot"] == "output of the block above" else None
    d = workdir()
    try:
        if b["lang"] == "sh":
            script, expect = sh_script(b["text"])
            outs = os.path.join(d, ".outs")
            os.mkdir(outs)
            with open(os.path.join(d, ".example.sh"), "w") as f:
                f.write(script)
            out = run(["bash", "-e", ".example.sh", outs], d, what)
            if out is None:
                return
            for n, want in enumerate(expect):
                got = open(os.path.join(outs, str(n))).read()
                if not matches(want, got):
                    bad(what, "the part before \"# => %s\" printed:\n%s" % (want.split("\n")[0], got))
                    return
        elif b["lang"] == "c":
            src = c_fragment(b["text"]) if annot == "C fragment" else b["text"]
            with open(os.path.join(d, "example.c"), "w") as f:
                f.write(src)
            cc = os.environ.get("CC", "cc")
            if run([cc, "-std=gnu11", "-Wall", "-Werror", "-Wno-unused-variable", "-Wno-unused-parameter",
                    "-I" + os.path.join(ROOT, "include"), "example.c", "-o", "example",
                    os.path.join(BUILD, "libcapsa.a")] + host_libs(), d, what + " (compile)") is None:
                return
            out = run(["./example"], d, what, quiet=True)
            if out is None:
                return
        elif b["lang"] == "js":
            with open(os.path.join(d, "example.js"), "w") as f:
                f.write(b["text"])
            opts = shlex.split(annot[len("run with "):]) if annot.startswith("run with ") else []
            out = run([os.path.join(d, "build", "capsa"), "run"] + opts + ["example.js"], d, what)
            if out is None:
                return
        elif b["lang"] == "python":
            with open(os.path.join(d, "example.py"), "w") as f:
                f.write(b["text"])
            out = run([sys.executable, "example.py"], d, what)
            if out is None:
                return
        elif b["lang"] == "json" and annot == "a policy":
            with open(os.path.join(d, "policy.json"), "w") as f:
                f.write(b["text"])
            out = run([os.path.join(d, "build", "capsa"), "run", "--policy", "policy.json", "-e", "return 1"], d, what)
            if out is None:
                return
        elif b["lang"] == "json" and annot == "an audit line":
            try:
                doc = set(json.loads(b["text"]))
            except ValueError as e:
                bad(what, "not JSON: %s" % e)
                return
            real = audit_fields(d)
            if real is None:
                return
            if doc != real:
                bad(what, "fields only here: %s; only in a real line: %s" % (sorted(doc - real), sorted(real - doc)))
                return
            out = None
        else:
            bad(what, "no way to run this block: give it a language (sh, c, js, python; text for a "
                "diagram) or an annotation (see tests/docs/examples.py)")
            return
        if expected is not None and not matches(expected, out):
            bad(what, "its output differs from the block after it; it printed:\n" + out)
            return
        ok(what + (" (output compared)" if expected is not None or (b["lang"] == "sh" and expect) else ""))
    finally:
        subprocess.run(["rm", "-rf", d])


def slug(title):
    """GitHub's anchor of a heading."""
    t = re.sub(r"[^\w\- ]", "", title.strip().lower())
    return t.replace(" ", "-")


def anchors(path):
    out = set()
    seen = {}
    infence = False
    for line in open(path, encoding="utf-8"):
        if line.startswith("```"):
            infence = not infence
            continue
        m = None if infence else re.match(r"^#+ (.*)$", line.rstrip("\n"))
        if m:
            s = slug(m.group(1))
            n = seen.get(s, 0)
            seen[s] = n + 1
            out.add(s if n == 0 else "%s-%d" % (s, n))
    return out


def check_links(page):
    """Every relative link of the page names a file that exists and an anchor it has."""
    rel = os.path.relpath(page, ROOT)
    text = open(page, encoding="utf-8").read()
    text = re.sub(r"^```.*?^```", "", text, flags=re.S | re.M)
    text = re.sub(r"`[^`\n]*`", "", text)
    broken = []
    n = 0
    for m in re.finditer(r"\]\(([^)\s]+)\)", text):
        target = m.group(1)
        if re.match(r"^[a-z]+:", target):
            continue
        n += 1
        path, _, anchor = target.partition("#")
        dest = os.path.normpath(os.path.join(os.path.dirname(page), path)) if path else page
        if not os.path.exists(dest):
            broken.append("%s: no file %s" % (target, os.path.relpath(dest, ROOT)))
        elif anchor and anchor not in anchors(dest):
            broken.append("%s: %s has no heading with the anchor #%s" % (target, os.path.relpath(dest, ROOT), anchor))
    if broken:
        bad("%s: links" % rel, "\n".join(broken))
    else:
        ok("%s: %d relative links and anchors" % (rel, n))


def main():
    for page in pages():
        check_links(page)
        bs = blocks(page)
        for k, b in enumerate(bs):
            prev = (bs[k - 1]["annot"] or "") if k else "not run"
            if b["annot"] == "output of the block above" and (prev.startswith("not run") or prev == b["annot"]):
                bad("%s:%d: an output block with no block before it to run" % (os.path.relpath(page, ROOT), b["line"]))
                continue
            run_block(page, b, bs[k + 1] if k + 1 < len(bs) else None)
    print("%d blocks not run:" % len(not_run))
    for n in not_run:
        print("    " + n)
    print("%d text blocks (diagrams) not run" % diagrams)
    print("%d passed, %d failed" % (passed, failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
