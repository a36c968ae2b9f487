"""DistributedDataParallel (gloo, CPU, 2 processes on 127.0.0.1) with trilinear3d.enable(): the trained
parameters equal a single process's on the same global batch."""
import os
import socket
import subprocess
import sys

import torch

HERE = os.path.dirname(os.path.abspath(__file__))
SCRIPT = os.path.join(HERE, "ddp_train.py")


def _free_port():
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _env(**extra):
    env = dict(os.environ, TRILINEAR3D_CORES="1", OMP_NUM_THREADS="1")
    env.update({k: str(v) for k, v in extra.items()})
    return env


def test_ddp_two_processes_match_single_process(tmp_path):
    single, parallel = tmp_path / "single.pt", tmp_path / "ddp.pt"
    steps = ["--steps", "3", "--batch", "4", "--size", "16"]
    subprocess.run([sys.executable, SCRIPT, *steps, "--out", str(single)], env=_env(), check=True, timeout=300)

    port = _free_port()
    ranks = [
        subprocess.Popen([sys.executable, SCRIPT, *steps, "--out", str(parallel)],
                         env=_env(RANK=r, LOCAL_RANK=r, WORLD_SIZE=2, MASTER_ADDR="127.0.0.1", MASTER_PORT=port),
                         stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        for r in range(2)
    ]
    outputs = []
    for p in ranks:
        out, _ = p.communicate(timeout=300)
        outputs.append(out)
    for r, (p, out) in enumerate(zip(ranks, outputs)):
        assert p.returncode == 0, f"rank {r} failed:\n{out}"
        assert "library forward" in out, out

    a, b = torch.load(single), torch.load(parallel)
    assert a.keys() == b.keys()
    for name in a:
        torch.testing.assert_close(b[name], a[name], rtol=1e-9, atol=1e-11, msg=lambda m: f"{name}: {m}")
    # The training moved the parameters (the comparison is not between two initial states).
    assert any(not torch.equal(a[n], b0) for n, b0 in _initial().items())


def _initial():
    sys.path.insert(0, HERE)
    from unet3d import UNet3d
    torch.manual_seed(0)
    return UNet3d(width=4).double().state_dict()
