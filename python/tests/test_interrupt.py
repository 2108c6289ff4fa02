"""Ctrl-C during a long evaluate (or solve) raises KeyboardInterrupt within a second or so,
and the process then exits without waiting for the abandoned work."""
import os
import signal
import subprocess
import sys
import textwrap
import time

import pytest

SOLVE_CHILD = textwrap.dedent("""
    import sys, time
    import evalforge
    p = evalforge.load_games(sys.argv[1]).positions(34)  # 26 empties: minutes without move ordering
    print("ready", flush=True)
    t0 = time.monotonic()
    try:
        evalforge.solve(int(p.black[0]), int(p.white[0]), 0, ordering="none", table_bits=16)
        print("finished", flush=True)
    except KeyboardInterrupt:
        print(f"interrupted {time.monotonic() - t0:.3f}", flush=True)
""")

CHILD = textwrap.dedent("""
    import sys, time
    import evalforge
    ev = evalforge.Evaluator(sys.argv[1], moves=list(range(10, 50)), epochs=10000, threads=1)
    print("ready", flush=True)
    t0 = time.monotonic()
    try:
        ev.evaluate(["edax"] * 4)
        print("finished", flush=True)
    except KeyboardInterrupt:
        print(f"interrupted {time.monotonic() - t0:.3f}", flush=True)
""")


@pytest.mark.parametrize("script", [CHILD, SOLVE_CHILD], ids=["evaluate", "solve"])
def test_sigint_raises_keyboard_interrupt(games_file, script):
    child = subprocess.Popen([sys.executable, "-c", script, str(games_file)], stdout=subprocess.PIPE, text=True,
                             env=dict(os.environ))
    try:
        assert child.stdout.readline().strip() == "ready"
        time.sleep(0.5)  # inside the call: either takes minutes
        sent = time.monotonic()
        child.send_signal(signal.SIGINT)
        line = child.stdout.readline().strip()
        answered = time.monotonic() - sent
        assert line.startswith("interrupted"), line
        # Generous bounds (a loaded 2-core machine): the poll is every 0.1 s.
        assert answered < 2.0
        child.wait(timeout=10)  # leaving Python does not wait for the abandoned batch
        assert child.returncode == 0
    finally:
        if child.poll() is None:
            child.kill()
            child.wait()
