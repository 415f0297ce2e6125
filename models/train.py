"""Train the die-face classifier on CPU and export it to ONNX.

    python datasets/build_training_set.py --keep-up   # writes datasets/build/*.npz
    python models/train.py [OPTIONS]                  # writes models/die_face.onnx and MODEL_CARD.md

`make train` passes the options of the shipped classifier (twice the default width, squashed
crops, the half-steep rendered set `synthetic_mix.npz`).

Needs the `train` extra (torch, onnx, onnxscript).  The network sees 32x32 BGR crops cut
by `vision.read.crops.crop_die` and has 7 outputs: faces 1..6 and "not a die face".  Training
uses the synthetic and the real `train` crops only; `val` and `test` are only reported.
"""

from __future__ import annotations

import argparse
import json
import math
import platform
import sys
import time
from pathlib import Path

import numpy as np
import torch
from torch import nn
from torch.nn import functional as F

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from models import checkpoints  # noqa: E402
from models.detector_net import freeze_batch_norms, load_exported_weights  # noqa: E402
from models.feature_outputs import add_feature_outputs  # noqa: E402
from vision.read.classifier import N_CLASSES, NOT_A_DIE, DieFaceClassifier  # noqa: E402

BUILD = ROOT / "datasets" / "build"
SHIPPED = ROOT / "models" / "die_face.onnx"
SHIPPED_CARD = ROOT / "models" / "MODEL_CARD.md"


def conv(inputs: int, outputs: int) -> list[nn.Module]:
    return [nn.Conv2d(inputs, outputs, 3, padding=1, bias=False), nn.BatchNorm2d(outputs), nn.ReLU(inplace=True)]


CHANNELS = (16, 32, 64, 64, 96)  # the conv layers at width 1 (the shipped classifier is width 2)


def channels_at(width: float) -> tuple[int, ...]:
    """The conv layers' channels of a network `width` times as wide as `CHANNELS`."""
    return tuple(round(n * width) for n in CHANNELS)


class DieFaceNet(nn.Module):
    """About 117k weights at width 1; 32x32 in, 7 probabilities out. `width` scales every
    layer's channels (1.0: `CHANNELS`)."""

    def __init__(self, width: float = 1.0) -> None:
        super().__init__()
        a, b, c, c2, d = channels_at(width)
        self.features = nn.Sequential(
            *conv(3, a), nn.MaxPool2d(2),
            *conv(a, b), nn.MaxPool2d(2),
            *conv(b, c), *conv(c, c2), nn.MaxPool2d(2),
            *conv(c2, d), nn.AdaptiveAvgPool2d(1), nn.Flatten(),
        )  # fmt: skip
        self.head = nn.Sequential(nn.Dropout(0.2), nn.Linear(d, N_CLASSES))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.head(self.features(x))


def load_exported_classifier(net: DieFaceNet, onnx_path: str) -> None:
    """Give `net` the weights of an exported die-face model (see `load_exported_weights`: its
    batch norms must stay in eval mode), the last layer included."""
    import onnx
    from onnx import numpy_helper

    load_exported_weights(net, onnx_path)
    model = onnx.load(onnx_path)
    weights = {item.name: numpy_helper.to_array(item) for item in model.graph.initializer}
    (gemm,) = [node for node in model.graph.node if node.op_type == "Gemm"]
    linear = net.head[1]
    assert isinstance(linear, nn.Linear)
    with torch.no_grad():
        linear.weight.copy_(torch.from_numpy(weights[gemm.input[1]].copy()))
        linear.bias.copy_(torch.from_numpy(weights[gemm.input[2]].copy()))


class WithSoftmax(nn.Module):
    def __init__(self, net: nn.Module) -> None:
        super().__init__()
        self.net = net

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return F.softmax(self.net(x), dim=1)


def load(name: str) -> tuple[np.ndarray, np.ndarray]:
    path = BUILD / name
    if not path.exists():
        raise SystemExit(f"{path} is missing: run python datasets/build_training_set.py first")
    data = np.load(path)
    return data["crops"], data["labels"]


def to_tensor(crops: np.ndarray) -> torch.Tensor:
    return torch.from_numpy(crops).permute(0, 3, 1, 2).float().div_(255.0)


def subsample_chroma(x: torch.Tensor) -> torch.Tensor:
    """BGR crops with their colour kept at half resolution and their lightness at full, as a
    webcam's or phone's JPEG keeps them: small pips that differ from their die by hue fade."""
    b, g, r = x[:, 0:1], x[:, 1:2], x[:, 2:3]
    luma = 0.299 * r + 0.587 * g + 0.114 * b

    def halve(channel: torch.Tensor) -> torch.Tensor:
        return F.interpolate(F.avg_pool2d(channel, 2), size=channel.shape[2:], mode="bilinear", align_corners=False)

    blue, red = luma + halve(b - luma), luma + halve(r - luma)
    green = (luma - 0.299 * red - 0.114 * blue) / 0.587
    return torch.cat([blue, green, red], 1)


def squashed(x: torch.Tensor, factors: torch.Tensor) -> torch.Tensor:
    """The crops squashed in height about their middle by `factors` (one each, up to 1), as a
    camera tilted towards the picture's up foreshortens a face; their edge rows fill the rest."""
    n = x.shape[0]
    theta = torch.zeros(n, 2, 3)
    theta[:, 0, 0] = 1.0
    theta[:, 1, 1] = 1.0 / factors
    grid = F.affine_grid(theta, list(x.shape), align_corners=False)
    return F.grid_sample(x, grid, mode="bilinear", padding_mode="border", align_corners=False)


def augment(
    x: torch.Tensor, generator: torch.Generator, chroma: float = 0.0, keep_up: bool = False, squash: float = 0.0
) -> torch.Tensor:
    """Changes that keep the face value: turns, mirror, colours, light, focus; with `chroma`,
    that share of the crops get their colour at half resolution first. With `keep_up`, no
    quarter turns: a steep die's side faces stay below its top face, where a camera sees them.
    With `squash`, that share of the crops are foreshortened as by a camera 15 to 50 degrees off
    vertical (`squashed`)."""
    n = x.shape[0]
    if chroma > 0:
        halved = torch.rand(n, generator=generator) < chroma
        if halved.any():
            x[halved] = subsample_chroma(x[halved]).clamp_(0, 1)
    if squash > 0:
        tilted = torch.rand(n, generator=generator) < squash
        angles = torch.empty(n).uniform_(math.radians(15), math.radians(50), generator=generator)
        if tilted.any():
            x[tilted] = squashed(x[tilted], torch.cos(angles[tilted])).clamp_(0, 1)
    k = int(torch.randint(4, (1,), generator=generator))
    if keep_up:
        k = 0  # drawn all the same, so the other changes see the same random numbers
    x = torch.rot90(x, k, (2, 3))
    if torch.rand(1, generator=generator) < 0.5:
        x = x.flip(3)
    swap = torch.rand(n, generator=generator) < 0.5
    if swap.any():
        order = torch.randperm(3, generator=generator)
        x[swap] = x[swap][:, order]
    invert = torch.rand(n, generator=generator) < 0.1
    x[invert] = 1 - x[invert]
    grey = torch.rand(n, generator=generator) < 0.1
    x[grey] = x[grey].mean(1, keepdim=True).expand(-1, 3, -1, -1)
    contrast = torch.empty(n, 1, 1, 1).uniform_(0.6, 1.4, generator=generator)
    brightness = torch.empty(n, 1, 1, 1).uniform_(-0.2, 0.2, generator=generator)
    mean = x.mean((1, 2, 3), keepdim=True)
    x = (x - mean) * contrast + mean + brightness
    soft = torch.rand(n, generator=generator) < 0.2
    if soft.any():
        side = int(torch.randint(14, 26, (1,), generator=generator))
        small = F.interpolate(x[soft], size=(side, side), mode="area")
        x[soft] = F.interpolate(small, size=x.shape[2:], mode="bilinear", align_corners=False)
    x = x + torch.randn(x.shape, generator=generator) * 0.02
    return x.clamp_(0, 1)


# Learning from a teacher: the soft answers at this temperature, given this share of the loss
# (the labels the rest), the usual settings of knowledge distillation.
TEACHER_TEMPERATURE = 2.0
TEACHER_SHARE = 0.5


def load_teacher(path: Path) -> nn.Module:
    """An exported die-face model as a frozen torch network, of the width its first layer has."""
    import onnx
    from onnx import numpy_helper

    model = onnx.load(str(path))
    weights = {item.name: item for item in model.graph.initializer}
    stem = next(node for node in model.graph.node if node.op_type == "Conv")
    width = numpy_helper.to_array(weights[stem.input[1]]).shape[0] / CHANNELS[0]
    net = DieFaceNet(width)
    load_exported_classifier(net, str(path))
    return net.eval().requires_grad_(False)


def taught_loss(logits: torch.Tensor, labels: torch.Tensor, teacher_logits: torch.Tensor | None) -> torch.Tensor:
    """The labels' cross-entropy and, with a teacher, its soft answers' (`TEACHER_SHARE`)."""
    loss = F.cross_entropy(logits, labels, label_smoothing=0.05)
    if teacher_logits is None:
        return loss
    t = TEACHER_TEMPERATURE
    soft = F.kl_div(
        F.log_softmax(logits / t, 1), F.log_softmax(teacher_logits / t, 1), reduction="batchmean", log_target=True
    )
    return (1 - TEACHER_SHARE) * loss + TEACHER_SHARE * t * t * soft


def train(args: argparse.Namespace) -> nn.Module:
    torch.manual_seed(args.seed)
    generator = torch.Generator().manual_seed(args.seed)
    sets = [load(name) for name in args.sets.split(",")]
    x = to_tensor(np.concatenate([crops for crops, _ in sets]))
    y = torch.from_numpy(np.concatenate([labels for _, labels in sets])).long()
    print(f"training on {len(y)} crops from {args.sets}", flush=True)
    net = DieFaceNet(args.width)
    if args.init:
        load_exported_classifier(net, str(args.init))
    teacher = load_teacher(args.teacher) if args.teacher else None
    optimiser = torch.optim.AdamW(net.parameters(), lr=args.lr, weight_decay=1e-4)
    per_epoch = min(len(y), args.per_epoch or len(y))
    steps = args.epochs * ((per_epoch + args.batch - 1) // args.batch)
    schedule = torch.optim.lr_scheduler.OneCycleLR(optimiser, max_lr=args.lr, total_steps=steps, pct_start=0.15)
    first = 0
    if args.checkpoint and args.checkpoint.exists():
        first = resume(args, net, optimiser, schedule, generator)
        print(f"going on from {args.checkpoint} after epoch {first}", flush=True)
    for epoch in range(first, args.epochs):
        net.train()
        if args.init:  # the folded statistics hold; only weights and batch-norm scales learn
            freeze_batch_norms(net)
        order = torch.randperm(len(y), generator=generator)[:per_epoch]
        total, correct, loss_sum = 0, 0, 0.0
        started = time.time()
        for i in range(0, per_epoch, args.batch):
            idx = order[i : i + args.batch]
            xb, yb = augment(x[idx].clone(), generator, args.chroma, args.keep_up, args.squash), y[idx]
            logits = net(xb)
            taught = None
            if teacher is not None:
                with torch.no_grad():
                    taught = teacher(xb)
            loss = taught_loss(logits, yb, taught)
            optimiser.zero_grad()
            loss.backward()
            optimiser.step()
            schedule.step()
            loss_sum += loss.item() * len(idx)
            correct += int((logits.argmax(1) == yb).sum())
            total += len(idx)
        scores = f"loss {loss_sum / total:.4f} train acc {correct / total:.4f}"
        print(f"epoch {epoch + 1}/{args.epochs}: {scores} ({time.time() - started:.0f} s)", flush=True)
        if args.checkpoint:
            save_checkpoint(args, epoch + 1, net, optimiser, schedule, generator)
    return net.eval()


# What a checkpoint must agree on to be gone on from: everything that shapes the training.
RECIPE = (
    "epochs", "per_epoch", "batch", "lr", "seed", "chroma", "squash", "width", "keep_up", "init", "sets", "teacher",
)  # fmt: skip


def save_checkpoint(
    args: argparse.Namespace,
    epochs_done: int,
    net: nn.Module,
    optimiser: torch.optim.Optimizer,
    schedule: torch.optim.lr_scheduler.LRScheduler,
    generator: torch.Generator,
) -> None:
    """Everything needed to go on after `epochs_done` epochs as if never stopped."""
    state = {
        "recipe": checkpoints.recipe(args, RECIPE),
        "epochs_done": epochs_done,
        "net": net.state_dict(),
        "optimiser": optimiser.state_dict(),
        "schedule": schedule.state_dict(),
        "generator": generator.get_state(),
        "torch_rng": torch.get_rng_state(),
        "seconds": args.seconds_before + time.time() - args.started,
        "cpu_seconds": args.cpu_seconds_before + time.process_time(),
    }
    checkpoints.save(args.checkpoint, state)


def resume(
    args: argparse.Namespace,
    net: nn.Module,
    optimiser: torch.optim.Optimizer,
    schedule: torch.optim.lr_scheduler.LRScheduler,
    generator: torch.Generator,
) -> int:
    """Load `args.checkpoint` into the training's parts; returns the epochs it had done."""
    state = checkpoints.load(args.checkpoint, checkpoints.recipe(args, RECIPE))
    net.load_state_dict(state["net"])
    optimiser.load_state_dict(state["optimiser"])
    schedule.load_state_dict(state["schedule"])
    generator.set_state(state["generator"])
    torch.set_rng_state(state["torch_rng"])
    args.seconds_before, args.cpu_seconds_before = state["seconds"], state["cpu_seconds"]
    return int(state["epochs_done"])


def export(net: nn.Module, path: Path) -> None:
    example = torch.zeros(1, 3, 32, 32)
    model = WithSoftmax(net).eval()
    torch.onnx.export(
        model,
        (example,),
        str(path),
        input_names=["crops"],
        output_names=["probabilities"],
        opset_version=18,
        dynamic_shapes={"x": {0: torch.export.Dim("batch", min=1, max=1024)}},
        dynamo=True,
        external_data=False,
    )
    add_feature_outputs(path)  # what a table's fix of the last layer is fitted on


def report(model_path: Path) -> dict[str, object]:
    """Accuracy of the exported model on the real val and test crops, per photo scale."""
    classifier = DieFaceClassifier(model_path)
    figures: dict[str, object] = {}
    for split in ("val", "test"):
        data = np.load(BUILD / f"real_{split}.npz")
        probabilities = classifier.predict_crops(data["crops"])
        predicted = probabilities.argmax(1)
        labels, scales = data["labels"], data["scales"]
        for scale in sorted(set(scales.tolist())):
            dice = (scales == scale) & (labels < NOT_A_DIE)
            other = (scales == scale) & (labels == NOT_A_DIE)
            figures[f"{split}/{scale}"] = {
                "dice": int(dice.sum()),
                "face_accuracy": float((predicted[dice] == labels[dice]).mean()),
                "dice_called_not_a_die": float((predicted[dice] == NOT_A_DIE).mean()),
                "negatives": int(other.sum()),
                "negatives_rejected": float((predicted[other] == NOT_A_DIE).mean()),
            }
    return figures


def latency_ms(model_path: Path, batch: int = 6, repeats: int = 300) -> float:
    classifier = DieFaceClassifier(model_path)
    crops = np.random.default_rng(0).integers(0, 256, (batch, 32, 32, 3), dtype=np.uint8)
    for _ in range(20):
        classifier.predict_crops(crops)
    times = []
    for _ in range(repeats):
        started = time.perf_counter()
        classifier.predict_crops(crops)
        times.append(time.perf_counter() - started)
    return float(np.median(times) * 1e3)


def count_crops(name: str, sets: str) -> int:
    return len(np.load(BUILD / name)["labels"]) if name in sets.split(",") else 0


def count_rendered_crops(sets: str) -> int:
    """Crops of every rendered set (`synthetic*.npz`) among `sets`."""
    return sum(count_crops(name, sets) for name in sets.split(",") if name.startswith("synthetic"))


def card_path(out: Path) -> Path:
    """The shipped model's card, or, for a model written anywhere else, a card beside it: a
    trial run must not overwrite the card of the model that ships."""
    return SHIPPED_CARD if out.resolve() == SHIPPED.resolve() else out.with_suffix(".md")


def write_card(figures: dict, path: Path, command: str) -> None:
    rows = []
    for key, f in figures["accuracy"].items():
        split, scale = key.split("/")
        scale = "full (2736)" if scale == "0" else scale
        rows.append(
            f"| {split} | {scale} | {f['dice']} | {100 * f['face_accuracy']:.2f}% | "
            f"{100 * f['dice_called_not_a_die']:.2f}% | {f['negatives']} | {100 * f['negatives_rejected']:.2f}% |"
        )
    table = "\n".join(rows)
    start = figures.get("initial_weights")
    went_on = f" Training went on from `{start}`, its batch norms frozen." if start else ""
    if figures.get("keep_up"):
        turns = "mirrors left to right but no turns (the picture's up kept)"
        tilts = "dice leaning away from the camera (their side faces below the top face), half of them 15 to 45 degrees"
        rotations = "turns of a normal spread of 10 degrees (the other sets' crops too)"
    else:
        turns = "random quarter turns, mirrors"
        tilts, rotations = "tilts up to 40 degrees with side faces", "random rotations"
    layers = channels_at(figures.get("width", 1.0))  # figures from before --width: the first width
    squash = figures.get("squash", 0.0)
    squash_note = f", {100 * squash:.0f}% of the crops squashed as a tilted camera sees them" if squash else ""
    mix_note = (
        " In `synthetic_mix.npz` the second half of the crops lean further: dice 40 px and up 15 to 65"
        " degrees, side views 75 to 85."
        if "synthetic_mix.npz" in figures["sets"].split(",")
        else ""
    )
    path.write_text(
        CARD.format(
            command=command,
            table=table,
            went_on=went_on,
            turns=turns,
            tilts=tilts,
            rotations=rotations,
            channels=", ".join(map(str, layers)),
            features=layers[-1],
            squash_note=squash_note,
            mix_note=mix_note,
            **figures,
        )
    )


CARD = """# Model card: die_face.onnx

A compact CNN that reads the top face of one die from a 32x32 BGR crop cut by
`vision.read.crops.crop_die`: the square on the longer side of the die's rotated box plus a
15% margin on each side, turned upright, sampled at 64x64 and averaged down.
Outputs 7 probabilities: faces 1..6 and "not a die face". `vision.read.classifier` runs it
with onnxruntime on the CPU, one intra-op thread. Two more outputs, added by
`models/feature_outputs.py`, give the {features} pooled features the last layer reads (`embedding`) and
that layer's output before the softmax (`logits`): a table's learner fits a fix of the last
layer on them (`vision.adapt.last_layer`).

- Architecture: 5 conv 3x3 + batch norm + ReLU layers ({channels} channels), three
  2x2 max pools, global average pool, dropout, one linear layer, softmax (in the graph).
- Size: {size_bytes} bytes, ONNX opset 18, input `crops` (N, 3, 32, 32) float in 0..1.
- Training: {epochs} epochs of {crops_per_epoch} random crops, AdamW with a one-cycle schedule, label smoothing
  0.05, {turns}, channel swaps, inversion, grey, contrast, brightness, blur and
  noise{squash_note}. {training_minutes} minutes wall clock ({cpu_minutes} CPU minutes) with
  `--threads {threads}` on a 2-core machine shared with other jobs.{went_on}
- Command: `{command}`

## Data

- Synthetic: {synthetic_crops} crops cut from scenes drawn by `vision.synth.render` (`datasets/synthetic_crops.py`,
  seed 1): every face value in many body and pip colours (pips lighter or darker than the
  body, or of another hue, as red pips on a black, smoke or blue die), round, square and ring pips,
  die sizes 20 to 110 px, spins, {tilts}, translucent
  dice, glare, shadows, blur, noise, JPEG, neighbouring dice at the crop edge. One crop
  in five is "not a die face": bare table, coins, poker chips and other shapes, half a
  die, two dice in one box, dice leaning 55 to 75 degrees.{mix_note}
- Real `train` splits (`datasets/extract_crops.py`), as `--sets` lists them ({sets}):
  - nellbyler-d6: every die at full size and with the photo shrunk to 1600, 1280, 960, 640
    and 480 px on the long side (dice about 170 down to 30 px), five crops per die and scale
    at {rotations} and box errors (box side 0.65 to 1.15 of the label's), plus table
    patches, half dice and die pairs as "not a die face": {real_crops} crops.
  - matteop65-webcam (oblique webcam, wood desk): a 56 px square at each label's centre (its
    boxes hug the pips), at full size and 480 px, eight crops each: {matteop65_crops} crops.
  - aws-vegas (phone photos of many dice, tables and trays): at full size and 400 px, eight
    crops each: {aws_crops} crops.
- `val` and `test` were never trained on.

## Accuracy on real crops (nellbyler-d6, labelled boxes, one crop per die)

"Scale" is the photo's long side in pixels. Negatives are table patches, half dice and
pairs of dice cut from the same photos.

| split | scale | dice | face accuracy | dice called "not a die" | negatives | negatives rejected |
|---|---|---|---|---|---|---|
{table}

## Latency

Median {latency_ms_6_crops} ms for one batch of six crops (onnxruntime, one thread, CPU
`{cpu}`), measured by the training script; cropping adds a little (see the
`test_cost_of_six_dice_per_frame` benchmark).

## Limits

- Trained on three real photo sets; other tables and lighting rely on the synthetic data.
- Dice seen strongly from the side, dice with logos instead of pips, and non-d6 dice
  are outside what it was trained to read; it should call them "not a die face".
"""


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--epochs", type=int, default=36)
    parser.add_argument("--per-epoch", type=int, default=50000, help="random crops per epoch (0: all)")
    parser.add_argument("--batch", type=int, default=256)
    parser.add_argument("--lr", type=float, default=4e-3)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument(
        "--chroma", type=float, default=0.0, help="share of crops shown with their colour at half resolution"
    )
    parser.add_argument("--squash", type=float, default=0.0, help="share of crops foreshortened as by a tilted camera")
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument(
        "--width",
        type=float,
        default=1.0,
        help="scale every layer's channels (1: 16 to 96; the shipped classifier is 2)",
    )
    parser.add_argument("--keep-up", action="store_true", help="no quarter turns (for crops cut with --keep-up)")
    parser.add_argument(
        "--init", type=Path, default=None, help="go on training from this exported model (batch norms stay frozen)"
    )
    parser.add_argument(
        "--teacher",
        type=Path,
        default=None,
        help=f"also learn this exported classifier's answers ({TEACHER_SHARE * 100:.0f}%% of the loss, "
        f"temperature {TEACHER_TEMPERATURE:g})",
    )
    parser.add_argument("--sets", default="synthetic.npz,real_train.npz,matteop65_train.npz,aws_train.npz",
                        help="crop sets under datasets/build/")  # fmt: skip
    parser.add_argument("--out", type=Path, default=SHIPPED)
    parser.add_argument(
        "--checkpoint",
        type=Path,
        default=None,
        help="save the training here after every epoch and, if it exists, go on from it (removed once exported)",
    )
    parser.add_argument(
        "--card",
        type=Path,
        default=None,
        help="where to write the model card (default: models/MODEL_CARD.md for the shipped model, "
        "else beside --out with the suffix .md)",
    )
    parser.add_argument(
        "--card-only", metavar="COMMAND", help="rewrite MODEL_CARD.md from the saved figures of COMMAND's run"
    )
    parser.add_argument(
        "--report-only",
        action="store_true",
        help="add the val and test accuracy to the figures of the model at --out (one trained with --no-report, "
        "once it is chosen)",
    )
    parser.add_argument(
        "--no-report",
        action="store_true",
        help="read no val or test crop: the figures go without their accuracy and no card is written "
        "(for a model that is still being chosen)",
    )
    args = parser.parse_args(argv)
    if not 0.25 <= args.width <= 8:
        parser.error(f"--width must lie between 0.25 and 8, got {args.width}")
    if args.card is None:
        args.card = card_path(args.out)
    if args.card_only:
        figures = json.loads(args.out.with_suffix(".json").read_text())
        if figures.get("accuracy") is None:
            raise SystemExit(f"{args.out.with_suffix('.json')} has no accuracy (a --no-report run): no card to write")
        write_card(figures, args.card, args.card_only)
        return 0
    missing = [path for path in (BUILD / "real_val.npz", BUILD / "real_test.npz") if not path.exists()]
    if args.report_only:
        summary = args.out.with_suffix(".json")
        if not summary.exists():
            raise SystemExit(f"{summary} is missing: --report-only adds to the figures of a finished training")
        if missing:
            raise SystemExit(f"{missing[0]} is missing for the report: run python datasets/build_training_set.py")
        figures = json.loads(summary.read_text()) | {"accuracy": report(args.out)}
        summary.write_text(json.dumps(figures, indent=2) + "\n")
        return 0
    if missing and not args.no_report:
        raise SystemExit(
            f"{missing[0]} is missing for the report: run python datasets/build_training_set.py, or pass --no-report"
        )
    torch.set_num_threads(args.threads)
    args.started, args.seconds_before, args.cpu_seconds_before = time.time(), 0.0, 0.0
    net = train(args)  # a resumed training sets the *_before times from its checkpoint
    minutes = (args.seconds_before + time.time() - args.started) / 60
    cpu_minutes = (args.cpu_seconds_before + time.process_time()) / 60
    export(net, args.out)
    if args.checkpoint:
        args.checkpoint.unlink(missing_ok=True)
    figures = {
        "training_minutes": round(minutes, 1),
        "threads": args.threads,
        "epochs": args.epochs,
        "crops_per_epoch": args.per_epoch or "all",
        "cpu_minutes": round(cpu_minutes, 1),
        "synthetic_crops": count_rendered_crops(args.sets),
        "real_crops": count_crops("real_train.npz", args.sets),
        "matteop65_crops": count_crops("matteop65_train.npz", args.sets),
        "aws_crops": count_crops("aws_train.npz", args.sets),
        "sets": args.sets,
        "initial_weights": str(args.init) if args.init else None,
        "teacher": str(args.teacher) if args.teacher else None,
        "keep_up": args.keep_up,
        "squash": args.squash,
        "chroma": args.chroma,
        "width": args.width,
        "size_bytes": args.out.stat().st_size,
        "latency_ms_6_crops": round(latency_ms(args.out), 3),
        "cpu": platform.processor() or platform.machine(),
        "accuracy": None if args.no_report else report(args.out),
    }
    summary = args.out.with_suffix(".json")
    summary.write_text(json.dumps(figures, indent=2) + "\n")
    command = "python models/train.py" + "".join(f" {a}" for a in (argv if argv is not None else sys.argv[1:]))
    if not args.no_report:
        write_card(figures, args.card, command)
    print(json.dumps(figures, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
