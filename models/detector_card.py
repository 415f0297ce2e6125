"""Write the dice detector's model card: its data, size, training, and how well it finds
dice on the `val` splits of the real photo sets (finding only; reading faces is the
reader's job and is measured by `dicekeeper eval`).

    python models/detector_card.py models/dice_detector.onnx   # writes models/DETECTOR_CARD.md
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from vision.eval.evaluate import match  # noqa: E402
from vision.eval.labels import LabelledDie, load_labelled_set  # noqa: E402
from vision.images import downscale, load_image  # noqa: E402
from vision.read.detect import DetectorSettings, DiceDetector  # noqa: E402
from vision.types import DieReading  # noqa: E402

SETS = {"nellbyler-d6": "val,test", "matteop65-webcam": "val", "aws-vegas": "val"}


def finding(model: Path, data: Path, max_side: int = 1280) -> dict[str, dict[str, float]]:
    """Recall and precision of the boxes alone, per set, at the shipped threshold, the network
    on the frame as it is (one view)."""
    detector = DiceDetector(model, settings=DetectorSettings(views=1, coarse_side=None))
    figures = {}
    for folder, splits in SETS.items():
        if not (data / folder).is_dir():
            continue
        found = labelled = reported = 0
        for split in splits.split(","):
            for item in load_labelled_set(data / folder, split):
                frame, scale = downscale(load_image(item.path), max_side)
                labels = [LabelledDie(d.value, tuple(v * scale for v in d.box)) for d in item.dice]  # type: ignore[misc]
                boxes = [DieReading(1, d.box, d.score, "detector") for d in detector.detect(frame)]
                found += len(match(boxes, labels))
                labelled += len(labels)
                reported += len(boxes)
        figures[folder] = {"dice": labelled, "recall": found / max(1, labelled), "precision": found / max(1, reported)}
    return figures


CARD = """# Model card: dice_detector.onnx

A small fully convolutional network (CenterNet-style) that finds the top face of every
six-sided die in a frame. `vision.read.detect` runs it with onnxruntime on the CPU, one
thread, on the frame shrunk or enlarged to 640 pixels on its long side.

- Architecture (`models/detector_net.py`): a 4x4 patch stem straight to 1/4 of the input,
  depthwise-separable blocks down to 1/32, a narrow feature pyramid (24 channels) back up to
  1/4, and a head of five maps at 1/4 of the input: die centre probability (3x3 peak
  suppression inside the graph), offset within the cell, and the log width and height of the
  top face's box. {parameters} weights. No layer runs at full or half size, where most of a
  small network's time goes.
- Size: {size_bytes} bytes, ONNX opset 18, input `frame` (1, 3, H, W) BGR in 0..1 with H and W
  multiples of 32.
- Training: {steps} steps of {batch} crops of 192x192, AdamW, learning rate {learning_rate} with
  a warm-up and a cosine decay on the {schedule}, focal loss on the centres (CenterNet's), L1 on
  offsets and log sizes. {minutes} minutes wall clock on a 2-core CPU{shared}.
- Command: `{command}`{lineage}

## Data

- Synthetic: {synthetic_frames} domain-randomised frames of 320x320 from
  `vision.synth.domain` (`datasets/detector_scenes.py`{seeds}): procedural tables (wood,
  felt, cloth, granite speckle, marble, paper with print, printed cloth, checks, painted,
  carpet, trays with walls and shadows), dice of any body and pip colour, marbled and
  translucent dice, round, square and ring pips, dice leaning up to about 55 degrees and
  a camera up to about 45 degrees off vertical, heaps of touching dice, matched sets (every
  die alike) in two frames of five, hands, coins, poker
  chips, cards, pens and d4, d8, d10, d12 and d20 dice (never labelled), light gradients,
  colour casts, defocus and motion blur, sensor noise and JPEG. About one frame in
  fourteen is an empty table.
- Real `train` splits, half of each batch in equal shares: {real_photos}. Each crop is
  cut at a random scale (a die from a third to 1.6 times the size it has when the whole
  photo is shrunk to 640), a random quarter turn plus up to about 6 degrees, mirrored half
  the time, with colour, light, blur, noise and JPEG changes. matteop65-webcam boxes hug the
  pips, so they teach where a die's centre is but not its size; aws-vegas boxes that the
  set marks unclear are left out of the loss.
- No `val` or `test` photo was trained on, and no setting was chosen by looking at them.

## Finding dice on `val` (boxes only, at --max-side 1280)

A box counts as found when its centre lies within half a labelled die of the label's centre.
These figures are the network on the frame as it is (one view, as the reader uses it by
default); the reader's own figures are in docs/vision.md.

| set | dice | recall | precision |
|---|---|---|---|
{table}

## Limits

- Dice under about 8 pixels across at the network's input (16 pixels in a 1280-wide frame)
  are at the edge of what a 1/4 grid separates.
- It was trained on three real photo sets and synthetic frames; tables unlike both may
  still fool it.{limits}
"""


def _lineage(info: dict[str, object]) -> str:
    """The runs before the last, for a model trained on from an earlier export (`--init`)."""
    earlier = info.get("earlier_runs") or []
    assert isinstance(earlier, list)
    return "".join(
        f"\n- Before that, the run whose export `--init` went on from: `{run['command']}`, "
        f"{run['steps']} steps at learning rate {run.get('learning_rate', 0.003)}, "
        f"{run['minutes']} minutes{run.get('shared', '')}."
        for run in earlier
    )


def write_card(model: Path, data: Path, card: Path) -> dict[str, object]:
    info = json.loads(model.with_suffix(".json").read_text())
    figures = finding(model, data)
    rows = "\n".join(
        f"| {name} | {f['dice']} | {100 * f['recall']:.2f}% | {100 * f['precision']:.2f}% |"
        for name, f in figures.items()
    )
    real = ", ".join(f"{name} ({count} photos)" for name, count in info["real_photos"].items())
    card.write_text(
        CARD.format(
            parameters=info.get("parameters", "about 113,000"),
            size_bytes=model.stat().st_size,
            steps=info["steps"],
            batch=info["batch"],
            learning_rate=info.get("learning_rate", 0.003),
            minutes=info["minutes"],
            schedule="steps" if info.get("step_budget") else "clock",
            shared=info.get("shared", ""),
            command=info["command"],
            lineage=_lineage(info),
            seeds=info.get("synthetic_seeds", ", seed 1"),
            synthetic_frames=info["synthetic_frames"],
            real_photos=real,
            table=rows,
            limits="".join(f"\n- {note}" for note in info.get("limits", [])),
        )
    )
    return figures


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("model", type=Path, nargs="?", default=ROOT / "models" / "dice_detector.onnx")
    parser.add_argument("--data", type=Path, default=ROOT.parent / "shared" / "datasets")
    parser.add_argument("--card", type=Path, default=ROOT / "models" / "DETECTOR_CARD.md")
    args = parser.parse_args(argv)
    print(json.dumps(write_card(args.model, args.data, args.card)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
