"""The classifier's training script: going on from an exported model (needs the `train` extra)."""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("torch")
pytest.importorskip("onnx")

import torch  # noqa: E402

from models.train import DieFaceNet, freeze_batch_norms, load_exported_classifier, to_tensor  # noqa: E402
from vision.read.classifier import load_default_classifier  # noqa: E402
from vision.read.models import default_model_path  # noqa: E402


def test_a_net_given_the_shipped_weights_computes_what_the_shipped_model_does() -> None:
    net = DieFaceNet()
    load_exported_classifier(net, str(default_model_path("die_face.onnx")))
    net.eval()
    crops = np.random.default_rng(0).integers(0, 256, (16, 32, 32, 3), dtype=np.uint8)
    with torch.no_grad():
        ours = torch.softmax(net(to_tensor(crops)), dim=1).numpy()
    shipped = load_default_classifier().predict_crops(crops)
    assert np.abs(ours - shipped).max() < 1e-5
    assert (ours.argmax(1) == shipped.argmax(1)).all()


def test_frozen_batch_norms_keep_their_statistics_while_the_net_trains() -> None:
    net = DieFaceNet()
    load_exported_classifier(net, str(default_model_path("die_face.onnx")))
    net.train()
    freeze_batch_norms(net)
    norm = net.features[1]
    before = norm.running_mean.clone()
    net(torch.rand(8, 3, 32, 32))
    assert not norm.training and torch.equal(norm.running_mean, before)
