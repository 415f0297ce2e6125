"""Train the dice detector on CPU and export it to ONNX.

    python datasets/detector_scenes.py                  # synthetic frames (datasets/build/)
    python models/train_detector.py --minutes 40        # writes models/dice_detector.onnx

Trains on the synthetic frames and the `train` splits of the real photo sets found beside
the project (`--data`, default ../shared/datasets). `--without DOMAIN` leaves one set out,
for measuring how the detector does on a table it never saw. `--checkpoint FILE` saves the
training every few hundred steps and goes on from it when run again. Needs the `train` extra.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

import cv2
import numpy as np
import torch
from torch.nn import functional as F

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "models"))

from detector_net import (  # noqa: E402
    NARROW,
    STRIDE,
    WIDE,
    DeployedDetector,
    DiceDetectorNet,
    freeze_batch_norms,
    load_exported_weights,
)

from models import checkpoints  # noqa: E402
from vision.eval.labels import load_labelled_set, scaled_box  # noqa: E402

# Real sets: folder name, and the die side in its photos when the boxes do not give it
# (matteop65-webcam boxes hug the pips, not the die).
DOMAINS = {"nellbyler": "nellbyler-d6", "matteop65": "matteop65-webcam", "aws": "aws-vegas"}
KNOWN_DIE_SIDE = {"matteop65": 58.0}
MAX_SIDE = {"nellbyler": 1024}  # big photos are kept at this long side (dice about 64 px)
CROP = 192
INPUT_SIDE = 640  # the runtime shrinks or enlarges every frame to this long side
DIE_RANGE = (7.0, 110.0)  # die sides the crops show, in detector-input pixels


@dataclass
class Photo:
    image: np.ndarray
    centres: np.ndarray  # (n, 2)
    sizes: np.ndarray  # (n, 2); NaN where unknown
    die_side: float
    ignore: np.ndarray  # (m, 4) x0 y0 x1 y1 regions the loss skips


def load_domain(data: Path, name: str) -> list[Photo]:
    root = data / DOMAINS[name]
    photos = []
    for item in load_labelled_set(root, "train"):
        image = cv2.imread(str(item.path), cv2.IMREAD_COLOR)
        if image is None:
            continue
        factor = min(1.0, MAX_SIDE.get(name, 10**6) / max(image.shape[:2]))
        if factor < 1:
            image = cv2.resize(image, None, fx=factor, fy=factor, interpolation=cv2.INTER_AREA)
        boxes = np.array([d.box for d in item.dice], np.float32).reshape(-1, 4) * factor
        centres = (boxes[:, :2] + boxes[:, 2:]) / 2
        sizes = boxes[:, 2:] - boxes[:, :2]
        if name in KNOWN_DIE_SIDE:
            sizes = np.full_like(sizes, np.nan)
            side = KNOWN_DIE_SIDE[name] * factor
        else:
            side = float(np.median(np.sqrt(sizes[:, 0] * sizes[:, 1]))) if len(sizes) else 40.0
        ignore = np.array([scaled_box(box, factor) for box in item.unlabelled], np.float32).reshape(-1, 4)
        photos.append(Photo(image, centres, sizes, side, ignore))
    return photos


def load_synthetic(path: Path) -> list[Photo]:
    data = np.load(path)
    frames, boxes = data["frames"], data["boxes"]
    photos = []
    for i in range(len(frames)):
        rows = boxes[boxes[:, 0] == i]
        side = float(np.median(np.sqrt(rows[:, 3] * rows[:, 4]))) if len(rows) else 40.0
        photos.append(Photo(frames[i], rows[:, 1:3].copy(), rows[:, 3:5].copy(), side, np.zeros((0, 4), np.float32)))
    return photos


def _colour(image: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    if rng.random() < 0.3:
        image = image[..., rng.permutation(3)]
    if rng.random() < 0.3:
        hsv = cv2.cvtColor(image, cv2.COLOR_BGR2HSV)
        hsv[..., 0] = (hsv[..., 0].astype(np.int16) + int(rng.integers(0, 180))) % 180
        image = cv2.cvtColor(hsv, cv2.COLOR_HSV2BGR)
    if rng.random() < 0.05:
        image = cv2.cvtColor(cv2.cvtColor(image, cv2.COLOR_BGR2GRAY), cv2.COLOR_GRAY2BGR)
    x = image.astype(np.float32)
    x = (x - 128) * rng.uniform(0.6, 1.4) + 128 * rng.uniform(0.6, 1.4)
    x *= rng.uniform(0.85, 1.15, 3).astype(np.float32)
    if rng.random() < 0.3:
        x = cv2.GaussianBlur(x, (0, 0), rng.uniform(0.3, 1.5))
    if rng.random() < 0.4:
        x += rng.normal(0, rng.uniform(1, 10), x.shape).astype(np.float32)
    out = np.clip(x, 0, 255).astype(np.uint8)
    if rng.random() < 0.25:
        ok, data = cv2.imencode(".jpg", out, [cv2.IMWRITE_JPEG_QUALITY, int(rng.integers(25, 90))])
        out = cv2.imdecode(data, cv2.IMREAD_COLOR) if ok else out
    return out


def sample(
    photo: Photo, rng: np.random.Generator, synthetic: bool
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """A CROP x CROP view of the photo at a random scale, turn and place, with its dice."""
    if synthetic:
        scale = rng.uniform(0.6, 1.5)
    else:
        # Around the size the die has when the whole photo is shrunk to the detector's input,
        # from a third of it (a wide webcam view) to half again as big.
        natural = photo.die_side * INPUT_SIDE / max(photo.image.shape[:2])
        target = natural * math.exp(rng.uniform(math.log(0.33), math.log(1.6)))
        scale = float(np.clip(target, *DIE_RANGE)) / photo.die_side
    turn = 90.0 * int(rng.integers(4)) + rng.normal(0, 6)
    if len(photo.centres) and rng.random() < 0.75:
        focus = photo.centres[int(rng.integers(len(photo.centres)))] + rng.uniform(-0.4, 0.4, 2) * CROP / scale
    else:
        focus = rng.uniform(0, 1, 2) * photo.image.shape[1::-1]
    matrix = cv2.getRotationMatrix2D((float(focus[0]), float(focus[1])), turn, scale)
    matrix[:, 2] += CROP / 2 - focus
    if rng.random() < 0.5:
        matrix[0] = -matrix[0]
        matrix[0, 2] += CROP
    border = tuple(int(v) for v in rng.integers(0, 256, 3))
    interpolation = cv2.INTER_AREA if scale < 0.7 else cv2.INTER_LINEAR
    if scale < 0.5:  # shrink in two steps so small dice keep their look
        # Only the part of the photo the turned crop can reach is shrunk (the focus lies less
        # than `reach` from the photo, so the part is never empty).
        reach = 0.75 * CROP / scale
        x0, y0 = (max(0, int(v - reach)) for v in focus)
        x1, y1 = int(focus[0] + reach) + 1, int(focus[1] + reach) + 1
        region = photo.image[y0:y1, x0:x1]
        small = cv2.resize(region, None, fx=scale * 1.5, fy=scale * 1.5, interpolation=cv2.INTER_AREA)
        m2 = matrix.copy()
        m2[:, :2] /= scale * 1.5
        m2[:, 2] = matrix[:, :2] @ (x0, y0) + matrix[:, 2]
        source, warp, interpolation = small, m2, cv2.INTER_LINEAR
    else:
        source, warp = photo.image, matrix
    view = cv2.warpAffine(
        source, warp, (CROP, CROP), flags=interpolation, borderMode=cv2.BORDER_CONSTANT, borderValue=border
    )
    centres = photo.centres @ matrix[:, :2].T + matrix[:, 2] if len(photo.centres) else photo.centres
    sizes = photo.sizes * scale
    if abs(round(turn / 90) % 2) == 1:
        sizes = sizes[:, ::-1]
    ignore = np.zeros((0, 4), np.float32)
    if len(photo.ignore):
        corners = np.concatenate([photo.ignore[:, :2], photo.ignore[:, 2:]]) @ matrix[:, :2].T + matrix[:, 2]
        a, b = corners[: len(photo.ignore)], corners[len(photo.ignore) :]
        ignore = np.concatenate([np.minimum(a, b), np.maximum(a, b)], 1)
    return _colour(view, rng), centres, sizes, ignore


def targets(centres: np.ndarray, sizes: np.ndarray, ignore: np.ndarray) -> tuple[np.ndarray, ...]:
    cells = CROP // STRIDE
    heat = np.zeros((cells, cells), np.float32)
    weight = np.ones((cells, cells), np.float32)
    box = np.zeros((4, cells, cells), np.float32)  # offset x, y, log w, log h
    has_box = np.zeros((2, cells, cells), np.float32)  # offset known, size known
    ys, xs = np.mgrid[0:cells, 0:cells].astype(np.float32)
    for (cx, cy), (w, h) in zip(centres, sizes):
        gx, gy = cx / STRIDE, cy / STRIDE
        if not (0 <= gx < cells and 0 <= gy < cells):
            continue
        side = math.sqrt(w * h) if np.isfinite(w) else None
        sigma = max(0.6, (side if side else 40.0) / STRIDE / 6)
        heat = np.maximum(heat, np.exp(-((xs - gx) ** 2 + (ys - gy) ** 2) / (2 * sigma * sigma)))
        ix, iy = int(gx), int(gy)
        heat[iy, ix] = 1.0
        box[0, iy, ix], box[1, iy, ix] = gx - ix, gy - iy
        has_box[0, iy, ix] = 1
        if side:
            box[2, iy, ix], box[3, iy, ix] = math.log(max(w, 1.0)), math.log(max(h, 1.0))
            has_box[1, iy, ix] = 1
    for x0, y0, x1, y1 in ignore:
        weight[
            max(0, int(y0 / STRIDE)) : max(0, int(math.ceil(y1 / STRIDE))),
            max(0, int(x0 / STRIDE)) : max(0, int(math.ceil(x1 / STRIDE))),
        ] = 0
    return heat, weight, box, has_box


def batch(
    sources: list[tuple[list[Photo], bool]],
    size: int,
    rng: np.random.Generator,
) -> tuple[torch.Tensor, ...]:
    """`size` crops and their targets."""
    images, heats, weights, boxes, masks = [], [], [], [], []
    for _ in range(size):
        photos, synthetic = sources[int(rng.integers(len(sources)))]
        image, centres, sizes, ignore = sample(photos[int(rng.integers(len(photos)))], rng, synthetic)
        heat, weight, box, has_box = targets(centres, sizes, ignore)
        images.append(image)
        heats.append(heat)
        weights.append(weight)
        boxes.append(box)
        masks.append(has_box)
    x = (
        torch.from_numpy(np.stack(images))
        .permute(0, 3, 1, 2)
        .float()
        .div_(255)
        .contiguous(memory_format=torch.channels_last)
    )
    return (
        x,
        torch.from_numpy(np.stack(heats))[:, None],
        torch.from_numpy(np.stack(weights))[:, None],
        torch.from_numpy(np.stack(boxes)),
        torch.from_numpy(np.stack(masks)),
    )


def loss_of(
    out: torch.Tensor, heat: torch.Tensor, weight: torch.Tensor, box: torch.Tensor, has_box: torch.Tensor
) -> tuple[torch.Tensor, float, float]:
    p = torch.sigmoid(out[:, :1]).clamp(1e-4, 1 - 1e-4)
    positive = (heat == 1).float()
    pos = -torch.log(p) * (1 - p) ** 2 * positive
    neg = -torch.log(1 - p) * p**2 * (1 - heat) ** 4 * (1 - positive) * weight
    count = positive.sum().clamp(min=1)
    heat_loss = (pos.sum() + neg.sum()) / count
    offset = (F.l1_loss(out[:, 1:3], box[:, :2], reduction="none") * has_box[:, :1]).sum() / has_box[:, 0].sum().clamp(
        min=1
    )
    size = (F.l1_loss(out[:, 3:5], box[:, 2:], reduction="none") * has_box[:, 1:]).sum() / has_box[:, 1].sum().clamp(
        min=1
    )
    return heat_loss + offset + size, float(heat_loss.detach()), float(size.detach())


def distillation_loss(out: torch.Tensor, taught: torch.Tensor) -> torch.Tensor:
    """How far the net's maps are from a teacher's on the same crops: the die probability of
    every cell (cross-entropy less the teacher's own, so a net that answers as the teacher does
    scores 0), and the offsets and sizes where the teacher sees a die."""
    sure = torch.sigmoid(taught[:, :1])
    heat = F.binary_cross_entropy_with_logits(out[:, :1], sure, reduction="sum")
    heat = heat - F.binary_cross_entropy_with_logits(taught[:, :1], sure, reduction="sum")
    dice = (sure > 0.3).float()
    count = dice.sum().clamp(min=1)
    boxes = (F.l1_loss(out[:, 1:5], taught[:, 1:5], reduction="none") * dice).sum() / count
    return heat / count + boxes


def export(net: DiceDetectorNet, path: Path) -> None:
    net.eval()
    deployed = DeployedDetector(net).eval()
    torch.onnx.export(
        deployed,
        torch.zeros(1, 3, 384, 640),
        str(path),
        input_names=["frame"],
        output_names=["maps"],
        dynamic_axes={"frame": {2: "height", 3: "width"}, "maps": {2: "rows", 3: "columns"}},
        opset_version=18,
        dynamo=False,
    )
    net.train()


def _exported(
    net: DiceDetectorNet, averaged: torch.optim.swa_utils.AveragedModel | None, steps: int
) -> DiceDetectorNet:
    """The net to export: the mean of the weights once there is one, else the net itself."""
    if averaged is None or steps == 0:
        return net
    mean: DiceDetectorNet = averaged.module
    return mean


# A checkpoint is written this often, in steps (about a minute and a quarter on two threads).
CHECKPOINT_STEPS = 500
# What a checkpoint must agree on to be gone on from: everything that shapes the training.
RECIPE = (
    "data", "synthetic", "without", "minutes", "steps", "batch", "lr", "seed", "init",
    "average_after", "constant_lr", "narrow", "wide", "teacher",
)  # fmt: skip


@dataclass
class Progress:
    """Where a training stands: what a checkpoint keeps besides the weights."""

    step: int = 0
    seconds: float = 0.0  # trained so far, before this run's start when resumed
    history: list[tuple[float, float, float]] = field(default_factory=list)
    averaged_steps: int = 0


def save_checkpoint(
    args: argparse.Namespace,
    progress: Progress,
    net: DiceDetectorNet,
    optimiser: torch.optim.Optimizer,
    averaged: torch.optim.swa_utils.AveragedModel | None,
    rng: np.random.Generator,
) -> None:
    """Everything needed to go on from `progress` as if never stopped."""
    state = {
        "recipe": checkpoints.recipe(args, RECIPE),
        "step": progress.step,
        "seconds": progress.seconds,
        "history": torch.tensor(progress.history, dtype=torch.float64).reshape(-1, 3),
        "averaged_steps": progress.averaged_steps,
        "net": net.state_dict(),
        "optimiser": optimiser.state_dict(),
        "averaged": averaged.state_dict() if averaged is not None else None,
        "rng": json.dumps(rng.bit_generator.state),
        "torch_rng": torch.get_rng_state(),
    }
    checkpoints.save(args.checkpoint, state)


def resume(
    args: argparse.Namespace,
    net: DiceDetectorNet,
    optimiser: torch.optim.Optimizer,
    averaged: torch.optim.swa_utils.AveragedModel | None,
    rng: np.random.Generator,
) -> Progress:
    """Load `args.checkpoint` into the training's parts; returns where it stood."""
    state = checkpoints.load(args.checkpoint, checkpoints.recipe(args, RECIPE))
    net.load_state_dict(state["net"])
    optimiser.load_state_dict(state["optimiser"])
    if averaged is not None:
        averaged.load_state_dict(state["averaged"])
    rng.bit_generator.state = json.loads(state["rng"])
    torch.set_rng_state(state["torch_rng"])
    history = [(a, b, c) for a, b, c in state["history"].tolist()]
    return Progress(int(state["step"]), float(state["seconds"]), history, int(state["averaged_steps"]))


def progress_of(step: int, seconds: float, minutes: float, steps: int | None) -> float:
    """How far training has gone, 0 to 1 and over: by steps when a step budget is given, else
    by the clock, so that a busy machine shortens training rather than the decay."""
    return step / steps if steps else seconds / (minutes * 60)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data", type=Path, default=ROOT.parent / "shared" / "datasets")
    parser.add_argument(
        "--synthetic", type=Path, nargs="+", default=[ROOT / "datasets" / "build" / "detector_synthetic.npz"]
    )
    parser.add_argument("--without", choices=sorted(DOMAINS), action="append", default=[])
    parser.add_argument("--minutes", type=float, default=40.0)
    parser.add_argument("--steps", type=int, default=None, help="train this many steps instead, the schedule on steps")
    parser.add_argument("--batch", type=int, default=32)
    parser.add_argument("--lr", type=float, default=3e-3)
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--out", type=Path, default=ROOT / "models" / "dice_detector.onnx")
    parser.add_argument("--card", type=Path, default=None, help="also write the model card here")
    parser.add_argument(
        "--init", type=Path, default=None, help="go on training from this exported detector (batch norms stay frozen)"
    )
    parser.add_argument(
        "--average-after",
        type=float,
        default=None,
        metavar="SHARE",
        help="export the mean of the weights of every step after this share of the time (with --init only)",
    )
    parser.add_argument("--constant-lr", action="store_true", help="no cosine decay: the rate stays at --lr")
    parser.add_argument(
        "--checkpoint",
        type=Path,
        default=None,
        help=f"save the training here every {CHECKPOINT_STEPS} steps and, if it exists, go on from it "
        "(removed once exported)",
    )
    widths = parser.add_mutually_exclusive_group()
    widths.add_argument(
        "--narrow", action="store_true", help=f"the narrow widths {NARROW} (as `models/prune_detector.py` writes)"
    )
    widths.add_argument("--wide", action="store_true", help=f"the wider widths {WIDE}")
    parser.add_argument(
        "--teacher",
        type=Path,
        default=None,
        help="also learn this exported detector's answers on every crop (of the shipped widths)",
    )
    args = parser.parse_args(argv)
    if args.average_after is not None and (args.init is None or not 0.0 <= args.average_after < 1.0):
        parser.error("--average-after needs --init (its batch norms stay frozen) and a share in [0, 1)")
    if args.steps is not None and args.steps < 1:
        parser.error(f"--steps must be at least 1, not {args.steps}")
    torch.set_num_threads(args.threads)
    cv2.setNumThreads(1)
    torch.manual_seed(args.seed)
    rng = np.random.default_rng(args.seed)

    started = time.time()
    sources: list[tuple[list[Photo], bool]] = []
    synthetic = [photo for path in args.synthetic for photo in load_synthetic(path)]
    used = {}
    for name in DOMAINS:
        if name in args.without or not (args.data / DOMAINS[name]).is_dir():
            continue
        photos = load_domain(args.data, name)
        sources.append((photos, False))
        used[name] = len(photos)
    # Half of every batch is synthetic, the other half the real sets in equal shares.
    sources = [(synthetic, True)] * max(1, len(sources)) + sources
    print(
        f"loaded {len(synthetic)} synthetic frames and {used} real photos in {time.time() - started:.0f} s", flush=True
    )

    chosen = NARROW if args.narrow else WIDE if args.wide else None
    net = DiceDetectorNet(**chosen) if chosen else DiceDetectorNet()
    if args.init:
        load_exported_weights(net, str(args.init))
    net = net.to(memory_format=torch.channels_last)
    teacher = None
    if args.teacher:
        teacher = DiceDetectorNet()
        load_exported_weights(teacher, str(args.teacher))
        teacher = teacher.to(memory_format=torch.channels_last).eval().requires_grad_(False)
    optimiser = torch.optim.AdamW(net.parameters(), lr=args.lr, weight_decay=1e-4)
    # The mean of the weights along the way (with the batch norms frozen, nothing else to redo).
    averaged = torch.optim.swa_utils.AveragedModel(net) if args.average_after is not None else None
    done = Progress()
    if args.checkpoint and args.checkpoint.exists():
        done = resume(args, net, optimiser, averaged, rng)
        print(f"going on from {args.checkpoint} after step {done.step}", flush=True)
    # The clock goes on from where the stopped run left it, so a time budget stays one budget.
    t0 = time.time() - done.seconds
    last_save = time.time()
    while True:
        progress = progress_of(done.step, time.time() - t0, args.minutes, args.steps)
        if progress >= 1.0:
            break
        decay = 1.0 if args.constant_lr else 0.5 * (1 + math.cos(math.pi * progress))
        lr = args.lr * min(1.0, (done.step + 1) / 50) * decay
        for group in optimiser.param_groups:
            group["lr"] = lr
        x, heat, weight, box, has_box = batch(sources, args.batch, rng)
        if args.init:  # the folded statistics hold; only weights and batch-norm scales learn
            freeze_batch_norms(net)
        out = net(x)
        loss, heat_loss, size_loss = loss_of(out, heat, weight, box, has_box)
        if teacher is not None:
            with torch.no_grad():
                taught = teacher(x)
            loss = loss + distillation_loss(out, taught)
        optimiser.zero_grad()
        loss.backward()
        optimiser.step()
        done.history.append((float(loss.detach()), heat_loss, size_loss))
        done.step += 1
        if averaged is not None and progress >= args.average_after:
            averaged.update_parameters(net)
            done.averaged_steps += 1
        if done.step % 50 == 0:
            recent = np.mean(done.history[-50:], axis=0)
            losses = f"loss {recent[0]:.3f} heat {recent[1]:.3f} size {recent[2]:.3f}"
            print(f"step {done.step} {losses} lr {lr:.5f} {time.time() - t0:.0f} s", flush=True)
        if args.checkpoint and done.step % CHECKPOINT_STEPS == 0:
            done.seconds = time.time() - t0
            save_checkpoint(args, done, net, optimiser, averaged, rng)
        if time.time() - last_save > 300:
            export(_exported(net, averaged, done.averaged_steps), args.out)
            last_save = time.time()
    export(_exported(net, averaged, done.averaged_steps), args.out)
    if args.checkpoint:
        args.checkpoint.unlink(missing_ok=True)
    info = {
        "command": "python models/train_detector.py " + " ".join(argv if argv is not None else sys.argv[1:]),
        "initial_weights": str(args.init) if args.init else None,
        "teacher": str(args.teacher) if args.teacher else None,
        "without": args.without,
        "real_photos": used,
        "synthetic_frames": len(synthetic),
        "steps": done.step,
        "step_budget": args.steps,
        "batch": args.batch,
        "learning_rate": args.lr,
        "constant_learning_rate": args.constant_lr,
        "averaged_steps": done.averaged_steps,
        "minutes": round((time.time() - t0) / 60, 1),
        "final_loss": [round(float(v), 4) for v in np.mean(done.history[-200:], axis=0)],
        "input_side": INPUT_SIDE,
        "parameters": sum(p.numel() for p in net.parameters()),
        "widths": chosen,
    }
    args.out.with_suffix(".json").write_text(json.dumps(info, indent=2) + "\n")
    print(json.dumps(info), flush=True)
    if args.card:
        from detector_card import write_card

        print(json.dumps(write_card(args.out, args.data, args.card)), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
