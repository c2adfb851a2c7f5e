"""A deliberately broken NBoard engine for tests: ``python broken_engine.py MODE``.

MODE: ``garbage`` (answers go with noise, then a malformed ===), ``hang``
(never answers go), ``illegal`` (answers go with a1), ``die`` (exits on go),
``silent`` (never answers anything, not even ping).
"""

import sys
import time

mode = sys.argv[1] if len(sys.argv) > 1 else "garbage"
for line in sys.stdin:
    words = line.split()
    if not words:
        continue
    if words[0] == "ping" and mode != "silent":
        print("pong", *words[1:], flush=True)
    elif words[0] == "go":
        if mode == "garbage":
            print("\x00\x01 lorem ipsum %%%", flush=True)
            print("=== zz9/abc", flush=True)
        elif mode == "hang":
            time.sleep(3600)
        elif mode == "illegal":
            print("=== a1/0.0/0.0", flush=True)
        elif mode == "die":
            sys.exit(3)
    elif words[0] == "quit":
        break
