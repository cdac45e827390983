#!/usr/bin/env python3
"""The Python anchor of bench/fleet_bench.sh: a json.load loop over the same report directory that
computes what gpuvet's drift needs -- per node its latest check, pools by GPU model and count, the
strict majority of driver, CUDA and VBIOS per pool, and which nodes/GPUs differ from it. It prints
the drift counts so the two can be checked against each other.
   bench/fleet_anchor.py DIR"""
import collections
import json
import os
import sys


def main(root):
    latest = {}  # host -> (generated_at, doc)
    for dirpath, _, files in os.walk(root):
        for name in sorted(files):
            if not name.endswith(".json"):
                continue
            with open(os.path.join(dirpath, name)) as f:
                doc = json.load(f)
            if doc.get("schema") != "gpuvet.check/v1":
                continue
            host = doc.get("host", {}).get("hostname", "")
            t = doc.get("generated_at", "")
            if host not in latest or t > latest[host][0]:
                latest[host] = (t, doc)
    pools = collections.defaultdict(list)
    for host, (_, doc) in latest.items():
        gpus = doc.get("gpus", [])
        models = sorted({g.get("name") or "unknown GPU" for g in gpus})
        pool = "no GPUs" if not gpus else "%s x%d" % ("+".join(models), len(gpus))
        pools[pool].append(doc)

    def majority(values):
        counts = collections.Counter(values)
        for v, c in counts.items():
            if 2 * c > len(values):
                return v
        return None

    drift = collections.Counter()
    for docs in pools.values():
        src = [d.get("gpu_source", {}) for d in docs]
        drivers = [s.get("driver_version") for s in src if s.get("driver_version")]
        cudas = [s.get("cuda_version") for s in src if s.get("cuda_version")]
        vbioses = [g.get("vbios_version") for d in docs for g in d.get("gpus", [])
                   if g.get("vbios_version")]
        md, mc, mv = majority(drivers), majority(cudas), majority(vbioses)
        for d, s in zip(docs, src):
            if md and s.get("driver_version") and s["driver_version"] != md:
                drift["driver"] += 1
            if mc and s.get("cuda_version") and s["cuda_version"] != mc:
                drift["cuda"] += 1
            for g in d.get("gpus", []):
                if mv and g.get("vbios_version") and g["vbios_version"] != mv:
                    drift["vbios"] += 1
    print("python anchor: %d nodes, %d pools, drift driver %d cuda %d vbios %d" %
          (len(latest), len(pools), drift["driver"], drift["cuda"], drift["vbios"]))


if __name__ == "__main__":
    main(sys.argv[1])
