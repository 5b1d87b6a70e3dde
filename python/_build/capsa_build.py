"""A minimal PEP 517 build backend for the capsa package, standard library only.

pip can build and install the package offline with it (``pip install ./python``): no
setuptools or wheel has to be downloaded. It builds one wheel holding ``capsa/`` (with
``libcapsa.so`` and ``libcapsa-net.so`` when ``make python`` has copied them there,
which makes the wheel platform-specific), and an sdist.
"""

from __future__ import annotations

import base64
import hashlib
import io
import re
import sysconfig
import tarfile
import zipfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "capsa"


def _project() -> tuple[str, str, str]:
    """(name, version, description) read from pyproject.toml (no tomllib on 3.10)."""
    text = (ROOT / "pyproject.toml").read_text(encoding="utf-8")
    project = text.split("[project]", 1)[1]

    def field(key: str) -> str:
        m = re.search(rf'^{key}\s*=\s*"([^"]*)"', project, re.M)
        if not m:
            raise RuntimeError(f"pyproject.toml: [project] {key} is missing")
        return m.group(1)

    return field("name"), field("version"), field("description")


def _files() -> list[Path]:
    out = []
    for p in sorted(PACKAGE.rglob("*")):
        if p.is_file() and "__pycache__" not in p.parts and p.suffix not in (".pyc", ".pyo"):
            out.append(p)
    return out


def _has_library() -> bool:
    return (PACKAGE / "libcapsa.so").is_file()


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


def _dist_info(name: str, version: str) -> dict[str, str]:
    return {
        "METADATA": _metadata(),
        "WHEEL": f"Wheel-Version: 1.0\nGenerator: capsa_build\nRoot-Is-Purelib: "
                 f"{'false' if _has_library() else 'true'}\nTag: {_tag()}\n",
        "top_level.txt": "capsa\n",
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
    entries = [(p.relative_to(ROOT).as_posix(), p.read_bytes()) for p in _files()]
    return _write_wheel(wheel_directory, entries)


def build_editable(wheel_directory: str, config_settings: dict | None = None,
                   metadata_directory: str | None = None) -> str:
    """An editable install: a .pth file that puts python/ on sys.path."""
    return _write_wheel(wheel_directory, [("capsa_editable.pth", (str(ROOT) + "\n").encode())])


def build_sdist(sdist_directory: str, config_settings: dict | None = None) -> str:
    name, version, _ = _project()
    base = f"{name}-{version}"
    path = Path(sdist_directory) / f"{base}.tar.gz"
    with tarfile.open(path, "w:gz", format=tarfile.PAX_FORMAT) as tf:
        for p in [ROOT / "pyproject.toml", ROOT / "README.md",
                  ROOT / "_build" / "capsa_build.py"] + _files():
            if p.exists() and p.name not in ("libcapsa.so", "libcapsa-net.so"):
                tf.add(p, arcname=f"{base}/{p.relative_to(ROOT).as_posix()}")
        pkg_info = _metadata().encode("utf-8")
        ti = tarfile.TarInfo(f"{base}/PKG-INFO")
        ti.size = len(pkg_info)
        ti.mode = 0o644
        tf.addfile(ti, io.BytesIO(pkg_info))
    return path.name

