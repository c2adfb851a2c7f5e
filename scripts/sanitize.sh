#!/usr/bin/env bash
# Rebuild outflank._core with ASan + UBSan and run the tests (all, or the
# files given as arguments) under it; the optimised build is restored after.
set -euo pipefail
cd "$(dirname "$0")/.."
rm -rf build/sanitize
OUTFLANK_CFLAGS="-O1 -g -fno-omit-frame-pointer -fsanitize=address,undefined -fno-sanitize-recover=undefined" \
OUTFLANK_LDFLAGS="-fsanitize=address,undefined" \
    python3 setup.py build_ext --inplace --force --build-temp build/sanitize >/dev/null
asan="$(gcc -print-file-name=libasan.so)"
ubsan="$(gcc -print-file-name=libubsan.so)"
status=0
LD_PRELOAD="$asan:$ubsan" ASAN_OPTIONS=detect_leaks=0 UBSAN_OPTIONS=print_stacktrace=1 \
    python3 -m pytest -q -p no:cacheprovider "${@:-tests}" || status=$?
# Put the optimised build back.
python3 setup.py build_ext --inplace --force >/dev/null
exit $status
