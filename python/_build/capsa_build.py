"""A minimal PEP 517 build backend for the capsa package, standard library only.

pip can build and install the package offline with it (``pip install ./python``): no
setuptools or wheel has to be downloaded. It builds one wheel holding ``capsa/`` and an
sdist. The wheel carries ``libcapsa.so`` (and ``libcapsa-net.so``) when there is one to
carry, which makes it platform-specific: the copy ``make python`` put in the package,
else the one built in this checkout's ``build/``; without either it is pure Python and
finds an installed ``libcapsa.so.0`` at run time. The version is read from
``include/capsa.h`` (``capsa/_version.py``) and written into the wheel and the sdist.
"""

from __future__ import annotations

import base64
import hashlib
import io
import re
import runpy
import sys
import sysconfig
import tarfile
import zipfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "capsa"
# The shared libraries the package loads, and where a checkout builds them.
LIBRARIES = ("libcapsa.so", "libcapsa-net.so")
CHECKOUT_BUILD = ROOT.parent / "build"


def _version() -> str:
    """The version capsa/_version.py gives (from include/capsa.h in a checkout)."""
    version = runpy.run_path(str(PACKAGE / "_version.py"))["__version__"]
    if "unknown" in version:
        raise RuntimeError("capsa: no include/capsa.h beside python/ to read the version from; "
                           "build from a checkout of capsa or from its sdist")
    return version


def _project() -> tuple[str, str, str]:
    """(name, version, description): name and description read from pyproject.toml
    (no tomllib on 3.10), the version from the header."""
    text = (ROOT / "pyproject.toml").read_text(encoding="utf-8")
    project = text.split("[project]", 1)[1]

    def field(key: str) -> str:
        m = re.search(rf'^{key}\s*=\s*"([^"]*)"', project, re.M)
        if not m:
            raise RuntimeError(f"pyproject.toml: [project] {key} is missing")
        return m.group(1)

    return field("name"), _version(), field("description")


def _files() -> list[Path]:
    out = []
    for p in sorted(PACKAGE.rglob("*")):
        if p.is_file() and "__pycache__" not in p.parts and p.suffix not in (".pyc", ".pyo"):
            out.append(p)
    return out


def _version_py() -> bytes:
    """capsa/_version.py as an installed package has it: the version as a literal."""
    return (f'"""The package\'s version, read from include/capsa.h when it was built."""\n\n'
            f'__version__ = "{_version()}"\n').encode()


def _libraries() -> list[tuple[str, Path]]:
    """(arcname, path) of each library the wheel carries: the package's copy (make
    python), else the one built in the checkout's build/."""
    out = []
    for name in LIBRARIES:
        for candidate in (PACKAGE / name, CHECKOUT_BUILD / name):
            if candidate.is_file():
                out.append((f"capsa/{name}", candidate))
                break
    return out


def _has_library() -> bool:
    return any(arc == "capsa/libcapsa.so" for arc, _ in _libraries())


def _package_entries() -> list[tuple[str, bytes]]:
    """The wheel's files: the package, its version as a literal, the libraries."""
    libs = _libraries()
    names = {arc for arc, _ in libs}
    entries = []
    for p in _files():
        arc = p.relative_to(ROOT).as_posix()
        if arc in names:
            continue
        entries.append((arc, _version_py() if arc == "capsa/_version.py" else p.read_bytes()))
    for arc, path in libs:
        print(f"capsa_build: the wheel carries {path}", file=sys.stderr)
        entries.append((arc, path.read_bytes()))
    if not libs:
        print("capsa_build: no libcapsa.so in the package or in build/: the wheel is pure "
              "Python and loads an installed libcapsa.so.0 (make install)", file=sys.stderr)
    return entries


def _tag() -> str:
    if not _has_library():
        return "py3-none-any"
    plat = re.sub(r"[-.]", "_", sysconfig.get_platform())
    return f"py3-none-{plat}"


def _metadata() -> str:
    name, version, description = _project()
    readme = (ROOT / "README.md").read_text(encoding="utf-8") if (ROOT / "README.md").exists() else ""
    return (f"Metadata-Version: 2.1\nName: {name}\nVersion: {version}\nSummary: {description}\n"
            "Requires-Python: >=3.10\nLicense: MIT\nProvides-Extra: langchain\n"
            "Requires-Dist: langchain-core; extra == \"langchain\"\n"
            f"Description-Content-Type: text/markdown\n\n{readme}")


def _record_line(path: str, data: bytes) -> str:
    digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
    return f"{path},sha256={digest},{len(data)}"


def _legal_files() -> dict[str, str]:
    """LICENSE and NOTICE (the third-party code inside libcapsa.so): beside
    pyproject.toml in an sdist, at the checkout's root otherwise."""
    out = {}
    for name in ("LICENSE", "NOTICE"):
        for p in (ROOT / name, ROOT.parent / name):
            if p.is_file():
                out[name] = p.read_text(encoding="utf-8")
                break
    return out


def _dist_info(name: str, version: str) -> dict[str, str]:
    return {
        "METADATA": _metadata(),
        "WHEEL": f"Wheel-Version: 1.0\nGenerator: capsa_build\nRoot-Is-Purelib: "
                 f"{'false' if _has_library() else 'true'}\nTag: {_tag()}\n",
        "top_level.txt": "capsa\n",
        **_legal_files(),
    }


# ---- PEP 517 hooks -----------------------------------------------------------------------


def get_requires_for_build_wheel(config_settings: dict | None = None) -> list[str]:
    return []


def get_requires_for_build_sdist(config_settings: dict | None = None) -> list[str]:
    return []


def get_requires_for_build_editable(config_settings: dict | None = None) -> list[str]:
    return []


def prepare_metadata_for_build_wheel(metadata_directory: str,
                                     config_settings: dict | None = None) -> str:
    name, version, _ = _project()
    info = f"{name}-{version}.dist-info"
    target = Path(metadata_directory) / info
    target.mkdir(parents=True, exist_ok=True)
    for fname, text in _dist_info(name, version).items():
        (target / fname).write_text(text, encoding="utf-8")
    return info


def _write_wheel(wheel_directory: str, entries: list[tuple[str, bytes]]) -> str:
    name, version, _ = _project()
    info = f"{name}-{version}.dist-info"
    wheel_name = f"{name}-{version}-{_tag()}.whl"
    records = []
    path = Path(wheel_directory) / wheel_name
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as zf:
        for arcname, data in entries:
            zi = zipfile.ZipInfo(arcname, date_time=(2020, 1, 1, 0, 0, 0))
            zi.external_attr = (0o755 if arcname.endswith(".so") else 0o644) << 16
            zi.compress_type = zipfile.ZIP_DEFLATED
            zf.writestr(zi, data)
            records.append(_record_line(arcname, data))
        for fname, text in _dist_info(name, version).items():
            data = text.encode("utf-8")
            zf.writestr(f"{info}/{fname}", data)
            records.append(_record_line(f"{info}/{fname}", data))
        records.append(f"{info}/RECORD,,")
        zf.writestr(f"{info}/RECORD", "\n".join(records) + "\n")
    return wheel_name


def build_wheel(wheel_directory: str, config_settings: dict | None = None,
                metadata_directory: str | None = None) -> str:
    return _write_wheel(wheel_directory, _package_entries())


def build_editable(wheel_directory: str, config_settings: dict | None = None,
                   metadata_directory: str | None = None) -> str:
    """An editable install: a .pth file that puts python/ on sys.path."""
    return _write_wheel(wheel_directory, [("capsa_editable.pth", (str(ROOT) + "\n").encode())])


def build_sdist(sdist_directory: str, config_settings: dict | None = None) -> str:
    name, version, _ = _project()
    base = f"{name}-{version}"
    path = Path(sdist_directory) / f"{base}.tar.gz"
    with tarfile.open(path, "w:gz", format=tarfile.PAX_FORMAT) as tf:
        def add_bytes(arcname: str, data: bytes) -> None:
            ti = tarfile.TarInfo(f"{base}/{arcname}")
            ti.size = len(data)
            ti.mode = 0o644
            tf.addfile(ti, io.BytesIO(data))

        for p in [ROOT / "pyproject.toml", ROOT / "README.md",
                  ROOT / "_build" / "capsa_build.py"] + _files():
            arc = p.relative_to(ROOT).as_posix()
            if not p.exists() or p.name in LIBRARIES:
                continue
            if arc == "capsa/_version.py":
                add_bytes(arc, _version_py())
            else:
                tf.add(p, arcname=f"{base}/{arc}")
        add_bytes("PKG-INFO", _metadata().encode("utf-8"))
        for fname, text in _legal_files().items():
            add_bytes(fname, text.encode("utf-8"))
    return path.name

