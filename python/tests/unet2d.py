"""A small 2-D U-Net (two levels, nn.Upsample(mode='bilinear') in its decoder): the 2-D test model of
test_linear_modes.py and python/bench_models.py's --2d run. It knows nothing of trilinear3d:
trilinear3d.enable() is what makes its upsampling run the library."""
import torch
from torch import nn


def _block(cin, cout):
    return nn.Sequential(nn.Conv2d(cin, cout, 3, padding=1), nn.GroupNorm(min(4, cout), cout), nn.ReLU(inplace=True),
                         nn.Conv2d(cout, cout, 3, padding=1), nn.ReLU(inplace=True))


class UNet2d(nn.Module):
    def __init__(self, in_channels=3, out_channels=2, width=8):
        super().__init__()
        self.enc1 = _block(in_channels, width)
        self.enc2 = _block(width, 2 * width)
        self.bottom = _block(2 * width, 4 * width)
        self.pool = nn.MaxPool2d(2)
        self.up = nn.Upsample(scale_factor=2, mode="bilinear", align_corners=False)
        self.dec2 = _block(4 * width + 2 * width, 2 * width)
        self.dec1 = _block(2 * width + width, width)
        self.head = nn.Conv2d(width, out_channels, 1)

    def forward(self, x):
        e1 = self.enc1(x)
        e2 = self.enc2(self.pool(e1))
        b = self.bottom(self.pool(e2))
        d2 = self.dec2(torch.cat([self.up(b), e2], dim=1))
        d1 = self.dec1(torch.cat([self.up(d2), e1], dim=1))
        return self.head(d1)
