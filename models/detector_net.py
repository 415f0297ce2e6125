"""The dice detector network: a small CenterNet-style fully convolutional net.

Input: a BGR frame as (1, 3, H, W) floats in 0..1, H and W multiples of 32. Output at a
quarter of the input size: (1, 5, H/4, W/4) = die-centre probability, centre offset within
the cell (x, y, in cells) and the log of the top face's box width and height in input px.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import torch
from torch import nn
from torch.nn import functional as F

STRIDE = 4


class _Separable(nn.Module):
    """Depthwise 3x3 then pointwise 1x1, with a shortcut when the shape allows it."""

    def __init__(self, inputs: int, outputs: int, stride: int = 1, dilation: int = 1) -> None:
        super().__init__()
        self.depthwise = nn.Sequential(
            nn.Conv2d(inputs, inputs, 3, stride, dilation, dilation=dilation, groups=inputs, bias=False),
            nn.BatchNorm2d(inputs),
            nn.ReLU(inplace=True),
        )
        self.pointwise = nn.Sequential(nn.Conv2d(inputs, outputs, 1, bias=False), nn.BatchNorm2d(outputs))
        self.shortcut = stride == 1 and inputs == outputs

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        y = self.pointwise(self.depthwise(x))
        return F.relu(y + x if self.shortcut else y)


# Two thirds of the channels at a quarter of the input and in the head, where two thirds of
# the network's time goes (docs/vision.md, "Speed").
NARROW: dict[str, Any] = {"channels": (16, 16, 48, 96, 128), "head": 16}
# A third more channels (half more at 1/32). onnxruntime computes the 24 channels at 1/4 in
# blocks of 16, as 32, so the wider layers there cost little more (docs/vision-probes.md, "A
# wider detector").
WIDE: dict[str, Any] = {"channels": (32, 32, 64, 128, 192), "head": 32}


class DiceDetectorNet(nn.Module):
    """A 4x4 patch stem straight to a quarter of the input (no layer runs at full or half
    size, where most of a small net's time goes), depthwise-separable blocks down to 1/32,
    and a narrow feature pyramid back up to 1/4."""

    def __init__(self, channels: tuple[int, ...] = (24, 24, 48, 96, 128), head: int = 24) -> None:
        super().__init__()
        c = channels
        self.stem = nn.Sequential(
            nn.Conv2d(3, c[0], STRIDE, STRIDE, bias=False),
            nn.BatchNorm2d(c[0]),
            nn.ReLU(inplace=True),
            _Separable(c[0], c[1]),
            _Separable(c[1], c[1]),
        )  # /4
        self.down8 = nn.Sequential(_Separable(c[1], c[2], 2), _Separable(c[2], c[2]))
        self.down16 = nn.Sequential(
            _Separable(c[2], c[3], 2), _Separable(c[3], c[3]), _Separable(c[3], c[3], dilation=2)
        )
        self.down32 = nn.Sequential(
            _Separable(c[3], c[4], 2), _Separable(c[4], c[4]), _Separable(c[4], c[4], dilation=2)
        )
        self.lateral16 = nn.Conv2d(c[3], head, 1)
        self.lateral8 = nn.Conv2d(c[2], head, 1)
        self.lateral4 = nn.Conv2d(c[1], head, 1)
        self.top32 = nn.Conv2d(c[4], head, 1)
        self.smooth = _Separable(head, head)
        self.head = nn.Sequential(_Separable(head, head), nn.Conv2d(head, 5, 1))
        nn.init.constant_(self.head[-1].bias, 0.0)
        with torch.no_grad():
            self.head[-1].bias[0] = -4.0  # dice are rare: start the heatmap near zero

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        f4 = self.stem(x)
        f8 = self.down8(f4)
        f16 = self.down16(f8)
        f32 = self.down32(f16)
        p = self.top32(f32)
        p = F.interpolate(p, scale_factor=2.0, mode="nearest") + self.lateral16(f16)
        p = F.interpolate(p, scale_factor=2.0, mode="nearest") + self.lateral8(f8)
        p = F.interpolate(p, scale_factor=2.0, mode="nearest") + self.lateral4(f4)
        return self.head(self.smooth(p))


class DeployedDetector(nn.Module):
    """What the ONNX file holds: the net with the heatmap through a sigmoid and 3x3 peak
    suppression, so the runtime only thresholds."""

    def __init__(self, net: nn.Module) -> None:
        super().__init__()
        self.net = net

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        out = self.net(x)
        heat = torch.sigmoid(out[:, :1])
        peaks = heat * (F.max_pool2d(heat, 3, 1, 1) == heat).float()
        return torch.cat([peaks, out[:, 1:]], 1)


def freeze_batch_norms(net: nn.Module) -> None:
    """Keep every batch norm in eval mode, so that the statistics folded into an exported
    network stay valid while training goes on from it (see `load_exported_weights`)."""
    for module in net.modules():
        if isinstance(module, nn.BatchNorm2d):
            module.eval()


def load_exported_weights(net: nn.Module, onnx_path: str) -> None:
    """Give `net` the convolutions of an exported network (a detector or the die-face
    classifier), so that training can go on from it.

    The export folds each batch norm into the convolution before it. The folded bias goes into
    the batch norm's shift, with unit statistics and scale, so the net in eval mode computes what
    the ONNX file does; go on training with the batch norms kept in eval mode.
    """
    import onnx
    from onnx import numpy_helper

    model = onnx.load(onnx_path)
    weights = {item.name: numpy_helper.to_array(item) for item in model.graph.initializer}
    exported = [
        (weights[node.input[1]], weights[node.input[2]] if len(node.input) > 2 else None)
        for node in model.graph.node
        if node.op_type == "Conv"
    ]
    order: list[nn.Conv2d] = []
    hooks = [
        m.register_forward_hook(lambda module, *_: order.append(module))
        for m in net.modules()
        if isinstance(m, nn.Conv2d)
    ]
    net.eval()
    with torch.no_grad():
        net(torch.zeros(1, 3, 64, 64))
    for hook in hooks:
        hook.remove()
    if len(order) != len(exported):
        raise ValueError(f"{onnx_path} has {len(exported)} convolutions, the net {len(order)}")
    following = {}
    modules = list(net.modules())
    for index, module in enumerate(modules):
        if (
            isinstance(module, nn.Conv2d)
            and index + 1 < len(modules)
            and isinstance(modules[index + 1], nn.BatchNorm2d)
        ):
            following[module] = modules[index + 1]
    with torch.no_grad():
        for conv, (weight, bias) in zip(order, exported):
            if tuple(conv.weight.shape) != weight.shape:
                raise ValueError(
                    f"{onnx_path}: a convolution of shape {weight.shape} where the net has {tuple(conv.weight.shape)}"
                )
            conv.weight.copy_(torch.from_numpy(weight.copy()))
            if conv.bias is not None:
                conv.bias.copy_(torch.from_numpy(bias.copy()))
            else:
                norm = following[conv]
                norm.running_mean.zero_()
                norm.running_var.fill_(1.0)
                norm.weight.fill_(float(np.sqrt(1.0 + norm.eps)))
                norm.bias.copy_(torch.from_numpy(bias.copy()))
