#!/usr/bin/python3
"""Forward + backward step time of trilinear3d.interpolate against F.interpolate(mode='trilinear').

Cases (docs/spec.md §8): B1 x [1,64,8,128,128] fp32 NCDHW -> size (16,256,256); B3 the same in
channels_last_3d. A step is y = f(x) followed by torch.autograd.grad(y, x, g). The forward and the
backward op alone are timed as well. Both run with the same thread count (torch.set_num_threads and
TRILINEAR3D_CORES, set before trilinear3d is imported), alternating one run of each, medians reported:
wall-clock, and the process's CPU time (all threads), which stays meaningful on a loaded machine.

Usage: /usr/bin/python3 python/bench_interpolate.py [--threads 2] [--repeats 7] [--cases B1,B3]
Run it after `bash tools/install_python.sh` (or with PYTHONPATH pointing at an installed copy).
"""
import argparse
import os
import statistics
import sys
import time


def parse_args():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--threads", type=int, default=2, help="torch threads and TRILINEAR3D_CORES (default 2)")
    parser.add_argument("--repeats", type=int, default=7, help="timed runs of each, alternating (default 7)")
    parser.add_argument("--cases", default="B1,B3", help="comma-separated subset of B1,B3 (default both)")
    parser.add_argument("--cache-mb", type=int, default=None,
                        help="sets TRILINEAR3D_PY_CACHE_MB, the extension's idle output-buffer cache (0: off)")
    return parser.parse_args()


args = parse_args()
# Import the installed trilinear3d, not the source folder next to this script (it has no compiled extension).
_here = os.path.dirname(os.path.abspath(__file__))
sys.path[:] = [p for p in sys.path if os.path.abspath(p or os.curdir) != _here]
os.environ["TRILINEAR3D_CORES"] = str(args.threads)  # read by the library at its first use
if args.cache_mb is not None:
    os.environ["TRILINEAR3D_PY_CACHE_MB"] = str(args.cache_mb)  # read by the extension at its first output

import torch  # noqa: E402
import torch.nn.functional as F  # noqa: E402

torch.set_num_threads(args.threads)
import trilinear3d  # noqa: E402

CASES = {
    "B1": dict(shape=(1, 64, 8, 128, 128), size=(16, 256, 256), channels_last=False),
    "B3": dict(shape=(1, 64, 8, 128, 128), size=(16, 256, 256), channels_last=True),
}


def timed(fn):
    """Wall-clock and process CPU seconds (all threads, page faults included) of one call."""
    wall, cpu = time.perf_counter(), time.process_time()
    fn()
    return time.perf_counter() - wall, time.process_time() - cpu


def alternate(fns, repeats):
    """Runs each function once as warm-up, then `repeats` rounds of one run each; returns, per function,
    the median wall-clock and the median CPU seconds."""
    for fn in fns:
        fn()
    samples = [[] for _ in fns]
    for _ in range(repeats):
        for i, fn in enumerate(fns):
            samples[i].append(timed(fn))
    return [(statistics.median(w for w, _ in s), statistics.median(c for _, c in s)) for s in samples]


def bench_case(name, shape, size, channels_last, repeats):
    torch.manual_seed(0)
    fmt = torch.channels_last_3d if channels_last else torch.contiguous_format
    x = torch.randn(shape).to(memory_format=fmt).requires_grad_(True)
    g = torch.randn(shape[:2] + size).to(memory_format=fmt)

    def step(f):
        def run():
            y = f(x, size=size, mode="trilinear", align_corners=False)
            (gx,) = torch.autograd.grad(y, x, g)
            return gx
        return run

    ours = lambda x, size, mode, align_corners: trilinear3d.interpolate(x, size=size, align_corners=align_corners)
    xd = x.detach()

    # Sanity: same results (within fp32 rounding) and layouts before timing.
    y_ours, y_ref = ours(xd, size, "trilinear", False), F.interpolate(xd, size=size, mode="trilinear")
    assert y_ours.is_contiguous(memory_format=fmt)
    torch.testing.assert_close(y_ours, y_ref, rtol=1e-5, atol=1e-5)
    del y_ours, y_ref

    fwd = alternate([
        lambda: ours(xd, size, "trilinear", False),
        lambda: F.interpolate(xd, size=size, mode="trilinear"),
    ], repeats)
    bwd = alternate([
        lambda: trilinear3d.upsample_trilinear3d_backward(g, list(size), list(shape), False),
        lambda: torch.ops.aten.upsample_trilinear3d_backward(g, list(size), list(shape), False),
    ], repeats)
    stp = alternate([step(ours), step(F.interpolate)], repeats)
    layout = "channels_last_3d" if channels_last else "NCDHW"
    print(f"{name} x{list(shape)} -> {list(size)} fp32 {layout}, {args.threads} threads, median of {repeats}"
          " (wall-clock ms; CPU ms of all threads in brackets):")
    for label, ((w_ours, c_ours), (w_ref, c_ref)) in (("forward", fwd), ("backward", bwd), ("forward+backward", stp)):
        print(f"  {label:17s} trilinear3d {w_ours * 1e3:8.1f} [{c_ours * 1e3:8.1f}]   F.interpolate {w_ref * 1e3:8.1f}"
              f" [{c_ref * 1e3:8.1f}]   speed-up {w_ref / w_ours:5.2f}x [CPU {c_ref / c_ours:5.2f}x]")
    return stp[1][0] / stp[0][0], stp[1][1] / stp[0][1]


def main():
    print(f"torch {torch.__version__}, trilinear3d {trilinear3d.__version__} ({trilinear3d.__file__}), "
          f"TRILINEAR3D_PY_CACHE_MB={os.environ.get('TRILINEAR3D_PY_CACHE_MB', 'unset (1024)')}")
    ratios = {}
    for name in args.cases.split(","):
        name = name.strip()
        if name not in CASES:
            sys.exit(f"unknown case {name!r}; known: {', '.join(CASES)}")
        ratios[name] = bench_case(name, repeats=args.repeats, **CASES[name])
    print("forward+backward speed-up (wall-clock): " + ", ".join(f"{k} {w:.2f}x" for k, (w, _) in ratios.items()))
    print("forward+backward speed-up (CPU time):   " + ", ".join(f"{k} {c:.2f}x" for k, (_, c) in ratios.items()))
    if "B1" in ratios:
        print(f"target (B1 forward+backward >= 5x, wall-clock): {'met' if ratios['B1'][0] >= 5.0 else 'NOT met'}")


if __name__ == "__main__":
    main()
