#!/usr/bin/env python3
"""Writes the report tree of bench/fleet_bench.sh: NODES nodes, each with the three check reports of
the fleet fixture's gpu-node-05 (host name rewritten; every 97th node on driver 550.54.15 so drift
fires) and the bench report of gpu-node-01. Byte for byte what the script's former sed loop wrote
(each substitution on the first match of a line), in seconds instead of minutes.
   bench/fleet_make.py SRC_REPORTS_DIR OUT_DIR NODES"""
import os
import sys


def first_per_line(text, old, new):
    return "".join(line.replace(old, new, 1) for line in text.splitlines(keepends=True))


def main(src, out, nodes):
    width = len(str(nodes))  # seq -w
    checks = {}
    for name in sorted(os.listdir(os.path.join(src, "gpu-node-05"))):
        if name.startswith("check-"):
            with open(os.path.join(src, "gpu-node-05", name)) as f:
                checks[name] = f.read()
    benches = {}
    for name in sorted(os.listdir(os.path.join(src, "gpu-node-01"))):
        if name.startswith("bench-"):
            with open(os.path.join(src, "gpu-node-01", name), "rb") as f:
                benches[name] = f.read()
    for i in range(1, nodes + 1):
        node = "node-%0*d" % (width, i)
        driver = "550.54.15" if i % 97 == 0 else "550.90.07"
        d = os.path.join(out, node)
        os.makedirs(d, exist_ok=True)
        for name, text in checks.items():
            text = first_per_line(text, "gpu-node-05", node)
            text = first_per_line(text, '"driver_version": "550.90.07"',
                                  '"driver_version": "%s"' % driver)
            with open(os.path.join(d, name), "w") as f:
                f.write(text)
        for name, data in benches.items():
            with open(os.path.join(d, name), "wb") as f:
                f.write(data)


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2], int(sys.argv[3]))
