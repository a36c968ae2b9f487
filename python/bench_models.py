"""Training steps of real models with torch's linear upsampling and with trilinear3d.enable(), eager and under
torch.compile, side by side in one process: MONAI's SegResNet (its default upsampling, "nontrainable", is
nn.Upsample(mode='trilinear')) and tests/unet3d.py's small U-Net, both unmodified, on synthetic data; and
tests/unet2d.py's 2-D U-Net (nn.Upsample(mode='bilinear'), model "unet2d", input (batch, 3, size, size)).

    python bench_models.py [--size 64] [--batch 1] [--reps 5] [--threads 2] [--models segresnet,unet,unet2d]
                           [--no-compile]

For each model: the step (forward, loss, backward, SGD update) alternates between four copies of the model
(same initial weights, same data): eager with torch's kernels, eager with enable(), torch.compile'd (default
Inductor backend) without and with enable() (without --no-compile, where torch has torch.compile). The reported
times (wall clock, and the process's CPU time, which other load on the machine moves least) are medians; the
losses of all runs must agree; torch's profiler then gives the upsampling share (aten::upsample_trilinear3d,
upsample_bilinear2d, upsample_linear1d and their backwards, self CPU time) of one eager step in each mode, and
the library's calls per compiled step show that the compiled graph runs it.
"""
import argparse
import copy
import os
import statistics
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--size", type=int, default=64, help="spatial size of the cubic (2-D: square) input")
    parser.add_argument("--batch", type=int, default=1)
    parser.add_argument("--reps", type=int, default=5, help="timed steps per mode")
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--models", default="segresnet,unet")
    parser.add_argument("--no-compile", action="store_true", help="eager columns only")
    args = parser.parse_args()
    os.environ.setdefault("TRILINEAR3D_CORES", str(args.threads))
    os.environ.setdefault("OMP_NUM_THREADS", str(args.threads))

    # The installed module, never the source folder next to this script.
    sys.path[:] = [p for p in sys.path if os.path.abspath(p or os.curdir) != HERE]
    sys.path.insert(0, os.path.join(HERE, "tests"))
    import torch
    import torch.nn.functional as F
    import trilinear3d
    from unet2d import UNet2d
    from unet3d import UNet3d

    torch.set_num_threads(args.threads)
    print(f"torch {torch.__version__}, {torch.get_num_threads()} threads, TRILINEAR3D_CORES="
          f"{os.environ['TRILINEAR3D_CORES']}, float32")

    def make(name):
        if name == "segresnet":
            from monai.networks.nets import SegResNet
            import monai
            return SegResNet(spatial_dims=3, in_channels=1, out_channels=2, init_filters=8), f"MONAI {monai.__version__} SegResNet(init_filters=8)"
        if name == "unet":
            return UNet3d(in_channels=1, out_channels=2, width=16), "UNet3d(width=16) (python/tests/unet3d.py)"
        if name == "unet2d":
            return UNet2d(in_channels=3, out_channels=2, width=16), \
                "UNet2d(width=16) (python/tests/unet2d.py)"
        raise SystemExit(f"unknown model {name}")

    upsampling = {f"aten::upsample_{op}{suffix}" for op in ("trilinear3d", "bilinear2d", "linear1d")
                  for suffix in ("", "_backward")}

    compile_too = not args.no_compile and hasattr(torch, "compile")
    # (compiled, enabled): the four ways a step runs.
    ways = [(False, False), (False, True)] + ([(True, False), (True, True)] if compile_too else [])
    labels = {(False, False): "eager, torch", (False, True): "eager, enable()",
              (True, False): "compiled, torch", (True, True): "compiled, enable()"}

    for name in args.models.split(","):
        torch.manual_seed(0)
        base, label = make(name)
        gen = torch.Generator().manual_seed(0)
        spatial = (args.size,) * (2 if name == "unet2d" else 3)
        x = torch.randn((args.batch, 3 if name == "unet2d" else 1) + spatial, generator=gen)
        target = torch.randn((args.batch, 2) + spatial, generator=gen)
        label += f", input {tuple(x.shape)}"
        models = {way: copy.deepcopy(base) for way in ways}
        optimizers = {way: torch.optim.SGD(m.parameters(), lr=1e-3) for way, m in models.items()}
        forwards = {way: torch.compile(m) if way[0] else m for way, m in models.items()}

        def step(way):
            with trilinear3d.enabled(way[1]):
                optimizers[way].zero_grad(set_to_none=True)
                loss = F.mse_loss(forwards[way](x), target)
                loss.backward()
                optimizers[way].step()
            return float(loss.detach())

        losses = {way: [] for way in ways}
        times = {way: [] for way in ways}
        cpu_times = {way: [] for way in ways}  # the process's CPU time: what other load on the machine moves least
        first = {}
        for _ in range(2):  # warm-up (compiles; also fills the library's output cache)
            for way in ways:
                t0 = time.perf_counter()
                losses[way].append(step(way))
                first.setdefault(way, time.perf_counter() - t0)
        for _ in range(args.reps):
            for way in ways:
                t0, c0 = time.perf_counter(), time.process_time()
                losses[way].append(step(way))
                times[way].append(time.perf_counter() - t0)
                cpu_times[way].append(time.process_time() - c0)
        reference = losses[(False, False)]
        for way in ways:
            for a, b in zip(reference, losses[way]):
                assert abs(a - b) <= 1e-4 * max(1.0, abs(a)), \
                    f"losses differ: torch {reference}, {labels[way]} {losses[way]}"

        shares = {}
        for on in (False, True):
            with torch.profiler.profile(activities=[torch.profiler.ProfilerActivity.CPU]) as prof:
                step((False, on))
            total = up = 0.0
            for e in prof.key_averages():
                total += e.self_cpu_time_total
                if e.key in upsampling:
                    up += e.self_cpu_time_total
            shares[on] = (up / total if total else 0.0, up / 1e3)
        calls = {}
        for way in ways:
            if way[1]:
                trilinear3d.reset_stats()
                step(way)
                counts = trilinear3d.stats()
                calls[way] = {key: sum(counts[op][key] for op in counts if isinstance(counts[op], dict))
                              for key in ("forward", "backward", "fallback_forward", "fallback_backward")}

        median = {way: statistics.median(times[way]) for way in ways}
        print(f"\n{label}")
        for way in ways:
            print(f"  {labels[way]:20s} step median of {args.reps}: {median[way] * 1e3:6.0f} ms (min "
                  f"{min(times[way]) * 1e3:.0f} ms; CPU time {statistics.median(cpu_times[way]) * 1e3:.0f} ms; "
                  f"first step {first[way]:.1f} s)")
        print(f"  eager: torch / enable() {median[(False, False)] / median[(False, True)]:.2f}x"
              + (f"; compiled: torch / enable() {median[(True, False)] / median[(True, True)]:.2f}x; "
                 f"compiled, enable() vs eager, torch {median[(False, False)] / median[(True, True)]:.2f}x"
                 if compile_too else ""))
        print(f"  upsampling in torch's profile (self CPU, one eager step): torch {100 * shares[False][0]:.1f}% "
              f"({shares[False][1]:.0f} ms), enabled {100 * shares[True][0]:.1f}% ({shares[True][1]:.0f} ms)")
        last = ", ".join(f"{labels[w]} {losses[w][-1]:.6f}" for w in ways)
        print(f"  losses agree over {len(reference)} steps: last {last}")
        for way, counts in calls.items():
            print(f"  library calls per step, {labels[way]}: {counts['forward']} forward, {counts['backward']} "
                  f"backward, {counts['fallback_forward'] + counts['fallback_backward']} fallbacks")

if __name__ == "__main__":
    main()
