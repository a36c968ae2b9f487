"""Training steps of real 3-D models with torch's trilinear upsampling and with trilinear3d.enable(),
side by side in one process: MONAI's SegResNet (its default upsampling, "nontrainable", is
nn.Upsample(mode='trilinear')) and tests/unet3d.py's small U-Net, both unmodified, on synthetic data.

    python bench_models.py [--size 64] [--batch 1] [--reps 5] [--threads 2] [--models segresnet,unet]

For each model: the step (forward, loss, backward, SGD update) alternates between torch's kernels and the
library's, the reported times are medians; the losses of the two runs (same initial weights, same data)
must agree; torch's profiler then gives the upsampling share (aten::upsample_trilinear3d and its backward,
self CPU time) of one step in each mode.
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
    parser.add_argument("--size", type=int, default=64, help="spatial size of the cubic input")
    parser.add_argument("--batch", type=int, default=1)
    parser.add_argument("--reps", type=int, default=5, help="timed steps per mode")
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--models", default="segresnet,unet")
    args = parser.parse_args()
    os.environ.setdefault("TRILINEAR3D_CORES", str(args.threads))
    os.environ.setdefault("OMP_NUM_THREADS", str(args.threads))

    # The installed module, never the source folder next to this script.
    sys.path[:] = [p for p in sys.path if os.path.abspath(p or os.curdir) != HERE]
    sys.path.insert(0, os.path.join(HERE, "tests"))
    import torch
    import torch.nn.functional as F
    import trilinear3d
    from unet3d import UNet3d

    torch.set_num_threads(args.threads)
    print(f"torch {torch.__version__}, {torch.get_num_threads()} threads, TRILINEAR3D_CORES="
          f"{os.environ['TRILINEAR3D_CORES']}, input ({args.batch}, 1, {args.size}, {args.size}, {args.size}) float32")

    def make(name):
        if name == "segresnet":
            from monai.networks.nets import SegResNet
            import monai
            return SegResNet(spatial_dims=3, in_channels=1, out_channels=2, init_filters=8), f"MONAI {monai.__version__} SegResNet(init_filters=8)"
        if name == "unet":
            return UNet3d(in_channels=1, out_channels=2, width=16), "UNet3d(width=16) (python/tests/unet3d.py)"
        raise SystemExit(f"unknown model {name}")

    gen = torch.Generator().manual_seed(0)
    x = torch.randn(args.batch, 1, args.size, args.size, args.size, generator=gen)
    target = torch.randn(args.batch, 2, args.size, args.size, args.size, generator=gen)

    for name in args.models.split(","):
        torch.manual_seed(0)
        base, label = make(name)
        models = {False: base, True: copy.deepcopy(base)}
        optimizers = {k: torch.optim.SGD(m.parameters(), lr=1e-3) for k, m in models.items()}

        def step(on):
            with trilinear3d.enabled(on):
                optimizers[on].zero_grad(set_to_none=True)
                loss = F.mse_loss(models[on](x), target)
                loss.backward()
                optimizers[on].step()
            return float(loss.detach())

        losses = {False: [], True: []}
        times = {False: [], True: []}
        for _ in range(2):  # warm-up (also fills the library's output cache)
            for on in (False, True):
                losses[on].append(step(on))
        for _ in range(args.reps):
            for on in (False, True):
                t0 = time.perf_counter()
                losses[on].append(step(on))
                times[on].append(time.perf_counter() - t0)
        for a, b in zip(losses[False], losses[True]):
            assert abs(a - b) <= 1e-4 * max(1.0, abs(a)), f"losses differ: torch {losses[False]}, ours {losses[True]}"

        shares = {}
        for on in (False, True):
            with torch.profiler.profile(activities=[torch.profiler.ProfilerActivity.CPU]) as prof:
                step(on)
            total = up = 0.0
            for e in prof.key_averages():
                total += e.self_cpu_time_total
                if e.key in ("aten::upsample_trilinear3d", "aten::upsample_trilinear3d_backward"):
                    up += e.self_cpu_time_total
            shares[on] = (up / total if total else 0.0, up / 1e3)
        trilinear3d.reset_stats()
        step(True)
        counts = trilinear3d.stats()

        t_torch, t_ours = statistics.median(times[False]), statistics.median(times[True])
        print(f"\n{label}")
        print(f"  step median of {args.reps}: torch {t_torch * 1e3:.0f} ms, trilinear3d.enable() {t_ours * 1e3:.0f} ms "
              f"({t_torch / t_ours:.2f}x); min torch {min(times[False]) * 1e3:.0f} ms, "
              f"enabled {min(times[True]) * 1e3:.0f} ms")
        print(f"  upsampling in torch's profile (self CPU, one step): torch {100 * shares[False][0]:.1f}% "
              f"({shares[False][1]:.0f} ms), enabled {100 * shares[True][0]:.1f}% ({shares[True][1]:.0f} ms)")
        print(f"  losses agree over {len(losses[False])} steps: last torch {losses[False][-1]:.6f}, "
              f"enabled {losses[True][-1]:.6f}; library calls per step: {counts['forward']} forward, "
              f"{counts['backward']} backward, {counts['fallback_forward'] + counts['fallback_backward']} fallbacks")


if __name__ == "__main__":
    main()
