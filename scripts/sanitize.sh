#!/usr/bin/env bash
# Run the C core under the sanitizers.
#
#   scripts/sanitize.sh [TEST_FILES...]   ASan + UBSan: rebuild outflank._core
#       with them and run the tests (all, or the files given) under it; the
#       optimised build is restored after.
#   scripts/sanitize.sh --thread [THREADS...]   ThreadSanitizer: build the
#       standalone driver tests/c/parallel_search.c against the core's C
#       files (not the Python ones: an uninstrumented CPython would drown the
#       report in noise) and run it with each number of threads given
#       (default 2 and 4): parallel midgame searches and solves, a stop from
#       another thread, a node limit, many short searches. Any race report
#       fails the run.
set -euo pipefail
cd "$(dirname "$0")/.."

if [[ "${1:-}" == "--thread" ]]; then
    shift
    out="build/tsan"
    rm -rf "$out"
    mkdir -p "$out"
    core=(bitboard clock endgame eval eval_default memory parallel search stability tt)
    sources=()
    for name in "${core[@]}"; do sources+=("src/outflank/_core/$name.c"); done
    gcc -std=c11 -O1 -g -fno-omit-frame-pointer -fsanitize=thread -pthread -mpopcnt \
        -Wall -Wextra -Wno-unused-function -Werror -Isrc/outflank/_core \
        tests/c/parallel_search.c "${sources[@]}" -o "$out/parallel_search" -lm
    gunzip -c src/outflank/data/eval.bin.gz > "$out/eval.bin"
    status=0
    [[ $# -gt 0 ]] || set -- 2 4
    for t in "$@"; do
        echo "== ThreadSanitizer: $t threads"
        TSAN_OPTIONS="halt_on_error=1 exitcode=66 second_deadlock_stack=1" \
            "$out/parallel_search" "$out/eval.bin" "$t" || status=$?
    done
    exit $status
fi

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
