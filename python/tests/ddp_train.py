"""Trains tests/unet3d.py's UNet3d a few SGD steps with trilinear3d.enable(), on synthetic data.

Data parallel, one process per rank (gloo, CPU), started by torchrun or by test_ddp.py, which sets the same
environment (RANK, WORLD_SIZE, MASTER_ADDR, MASTER_PORT)::

    torchrun --nproc_per_node=2 python/tests/ddp_train.py --steps 3 --out params.pt

Without WORLD_SIZE (or with WORLD_SIZE=1) it trains one process on the whole global batch, the reference
DDP must reproduce. Each rank takes its contiguous share of the global batch; DDP averages the gradients,
so with a mean loss the update equals the single process's.
"""
import argparse
import os
import sys

import torch
import torch.distributed as dist
import torch.nn.functional as F

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from unet3d import UNet3d  # noqa: E402

import trilinear3d  # noqa: E402


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--steps", type=int, default=3)
    parser.add_argument("--batch", type=int, default=4, help="global batch (divisible by the world size)")
    parser.add_argument("--size", type=int, default=16, help="spatial size of the cubic inputs")
    parser.add_argument("--out", default=None, help="rank 0 saves the trained parameters here")
    args = parser.parse_args()

    torch.set_num_threads(1)
    world = int(os.environ.get("WORLD_SIZE", "1"))
    rank = int(os.environ.get("RANK", "0"))
    if world > 1:
        dist.init_process_group("gloo", rank=rank, world_size=world)
    assert args.batch % world == 0, "the global batch must split evenly over the ranks"

    trilinear3d.enable()
    torch.manual_seed(0)
    model = UNet3d(width=4).double()
    train = torch.nn.parallel.DistributedDataParallel(model) if world > 1 else model
    optimizer = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)
    data = torch.Generator().manual_seed(1)
    share = args.batch // world
    for _ in range(args.steps):
        x = torch.randn(args.batch, 1, args.size, args.size, args.size, generator=data, dtype=torch.float64)
        target = torch.randn(args.batch, 2, args.size, args.size, args.size, generator=data, dtype=torch.float64)
        x, target = x[rank * share:(rank + 1) * share], target[rank * share:(rank + 1) * share]
        optimizer.zero_grad()
        loss = F.mse_loss(train(x), target)
        loss.backward()
        optimizer.step()
    counts = trilinear3d.stats()
    print(f"rank {rank}/{world}: loss {loss.item():.6f}, library forward {counts['forward']} "
          f"backward {counts['backward']}", flush=True)
    assert counts["forward"] >= 2 * args.steps and counts["backward"] >= 2 * args.steps, counts
    if rank == 0 and args.out:
        torch.save({k: v.detach().clone() for k, v in model.state_dict().items()}, args.out)
    if world > 1:
        dist.barrier()
        dist.destroy_process_group()


if __name__ == "__main__":
    main()
