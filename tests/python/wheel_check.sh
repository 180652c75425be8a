#!/usr/bin/env bash
# Installs the wheel `make wheel` built into a new virtual environment, with nothing
# else (no build tree, no source tree on the path), and uses it: the import, the
# version, a round trip, the files a type checker reads, and the library beside the
# module (no LD_LIBRARY_PATH).
#   wheel_check.sh PYTHON DIST_DIR
set -euo pipefail
python=$1
dist=$2
wheel=$(ls "$dist"/bulkcrypt-*.whl 2>/dev/null | head -n 1 || true)
if [ -z "$wheel" ]; then
  echo "skipped: no wheel in $dist (make wheel builds it; make test does)"
  exit 77
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
"$python" -m venv "$tmp/venv"
"$tmp/venv/bin/python" -m pip install -q --disable-pip-version-check --no-index --no-deps "$wheel"
cd "$tmp"
env -u PYTHONPATH -u LD_LIBRARY_PATH "$tmp/venv/bin/python" - "$tmp/venv" <<'PY'
import os, pathlib, sys
import bulkcrypt
root = pathlib.Path(bulkcrypt.__file__).parent
assert str(root).startswith(sys.argv[1]), f"imported from {root}, not the new environment"
for name in ("py.typed", "_native.pyi", "libbulkcrypt.so.0"):
    assert (root / name).is_file(), f"{name} missing from the wheel"
stub = (root / "_native.pyi").read_text()
for word in ("class _Aead", "def encrypt_into", "class Context"):
    assert word in stub, f"the stub lacks {word!r}"
assert bulkcrypt.__version__.count(".") == 2, bulkcrypt.__version__
key, nonce = os.urandom(32), os.urandom(12)
a = bulkcrypt.ChaCha20Poly1305(key)
sealed = a.encrypt(nonce, b"wheel check" * 1000, b"aad")
assert a.decrypt(nonce, sealed, b"aad") == b"wheel check" * 1000
print(f"wheel ok: bulkcrypt {bulkcrypt.__version__} from {root}, {len(bulkcrypt.algorithms())} algorithms")
PY
