"""torch.compile with and without trilinear3d.enable(), side by side in one process: the forward + backward of
F.interpolate(x, scale_factor=2, mode='trilinear') (y = f(x); torch.autograd.grad(y, x, g)) in four ways,
alternating, medians:

  eager            torch's kernels
  eager, enable()  the library through the aten override
  compiled         torch.compile(f) (default Inductor backend) without enable(): Inductor's own code
  compiled, enable() the same compiled function with enable(): its graph calls the library

    python bench_compile.py [--shape 1,16,32,64,64] [--reps 7] [--threads 2] [--dtype float32] [--channels-last]

Wall-clock and process CPU time medians (the CPU time is what other load on a shared machine moves least).
The one compiled function serves both states (a Dynamo guard on enable() keeps one graph per state). The
results of the four ways must agree within the tests' bound.
"""
import argparse
import os
import statistics
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--shape", default="1,16,32,64,64")
    parser.add_argument("--reps", type=int, default=7)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--dtype", default="float32")
    parser.add_argument("--channels-last", action="store_true")
    args = parser.parse_args()
    os.environ.setdefault("TRILINEAR3D_CORES", str(args.threads))
    os.environ.setdefault("OMP_NUM_THREADS", str(args.threads))
    sys.path[:] = [p for p in sys.path if os.path.abspath(p or os.curdir) != HERE]  # the installed module
    import torch
    import torch.nn.functional as F
    import trilinear3d

    torch.set_num_threads(args.threads)
    shape = tuple(int(v) for v in args.shape.split(","))
    dtype = getattr(torch, args.dtype)
    fmt = torch.channels_last_3d if args.channels_last else torch.contiguous_format
    gen = torch.Generator().manual_seed(0)
    x = torch.randn(shape, generator=gen).to(dtype).contiguous(memory_format=fmt).requires_grad_()
    g = torch.randn(shape[:2] + tuple(2 * s for s in shape[2:]), generator=gen).to(dtype).contiguous(
        memory_format=fmt)

    def f(t):
        return F.interpolate(t, scale_factor=2, mode="trilinear")

    compiled = torch.compile(f)
    ways = {"eager": (f, False), "eager, enable()": (f, True), "compiled": (compiled, False),
            "compiled, enable()": (compiled, True)}

    def step(fn, on):
        with trilinear3d.enabled(on):
            y = fn(x)
            (gx,) = torch.autograd.grad(y, x, g)
        return y, gx

    print(f"torch {torch.__version__}, {torch.get_num_threads()} threads, TRILINEAR3D_CORES="
          f"{os.environ['TRILINEAR3D_CORES']}, x {shape} {args.dtype}"
          f"{' channels_last_3d' if args.channels_last else ''}, scale_factor=2, forward + backward")
    results, compile_s = {}, {}
    for name, (fn, on) in ways.items():  # warm-up: compiles, fills the output cache
        t0 = time.perf_counter()
        results[name] = step(fn, on)
        compile_s[name] = time.perf_counter() - t0
        step(fn, on)
    tol = 1e-5 if dtype in (torch.float32, torch.float64) else 2e-2
    for name, (y, gx) in results.items():
        torch.testing.assert_close(y, results["eager"][0], rtol=tol, atol=tol, msg=name)
        torch.testing.assert_close(gx, results["eager"][1], rtol=tol, atol=tol * 16, msg=name)
    trilinear3d.reset_stats()
    step(compiled, True)
    counts = trilinear3d.stats()
    assert counts["forward"] == 1 and counts["backward"] == 1, counts

    times = {name: [] for name in ways}
    cpu_times = {name: [] for name in ways}  # the process's CPU time: what other load on the machine moves least
    for _ in range(args.reps):
        for name, (fn, on) in ways.items():
            t0, c0 = time.perf_counter(), time.process_time()
            step(fn, on)
            times[name].append(time.perf_counter() - t0)
            cpu_times[name].append(time.process_time() - c0)
    median = {name: statistics.median(times[name]) for name in ways}
    cpu = {name: statistics.median(cpu_times[name]) for name in ways}
    for name in ways:
        print(f"  {name:20s} median {median[name] * 1e3:8.1f} ms   min {min(times[name]) * 1e3:8.1f} ms   "
              f"CPU time {cpu[name] * 1e3:8.1f} ms   first call {compile_s[name]:6.1f} s")
    for what, t in (("wall", median), ("CPU time", cpu)):
        print(f"  {what}: compiled, enable() / eager, enable(): "
              f"{t['compiled, enable()'] / t['eager, enable()']:.2f}x; compiled / compiled, enable(): "
              f"{t['compiled'] / t['compiled, enable()']:.1f}x")
    print(f"  library calls per compiled step: {counts['forward']} forward, {counts['backward']} backward")


if __name__ == "__main__":
    main()
