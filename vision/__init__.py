"""Frames in, die readings out. It knows nothing of games, and imports nothing from
`scorekeeper`, `web` or `dicekeeper`.

It owns everything between a camera and the faces of the dice:

- `vision.read`: find the dice (learned detector), their pips and faces, the face classifier.
- `vision.live`: frame sources (cameras, videos, the demo table) and settling on a throw.
- `vision.draw`: annotators that draw readings and the live state onto frames.
- `vision.synth`: the dice renderer and the domain-randomised training scenes.
- `vision.eval`: labelled photo sets (the one YOLO/VOC loader) and scoring readings against them.
- `vision.training`: the crops and frames the two models are trained on.
- `vision.types` and `vision.images`: the shared vocabulary and image loading.
"""
