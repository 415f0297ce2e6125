import itertools
import sys

import numpy as np
import pytest

from vision.read.classifier import NOT_A_DIE, DieFaceClassifier, ModelError, default_model_path, load_default_classifier
from vision.synth.render import DieSpec, Effects, Scene, render
from vision.types import DieBox

LOOKS = [  # (body, pips, table, table colour), all BGR
    ((235, 235, 235), (25, 25, 25), "felt", (50, 110, 40)),
    ((35, 35, 190), (235, 235, 235), "wood", (60, 100, 150)),
    ((30, 30, 30), (235, 235, 235), "sheet", (235, 235, 235)),
    ((170, 90, 30), (40, 200, 230), "cloth", (150, 120, 90)),
]


@pytest.fixture(scope="module")
def classifier() -> DieFaceClassifier:
    return load_default_classifier()


def six_dice(body, pips, table, colour, size: float, angle: float) -> Scene:
    dice = tuple(
        DieSpec(value, 140 + 200 * ((value - 1) % 3), 130 + 200 * ((value - 1) // 3), size, angle=angle + 17 * value,
                tilt=8.0 * (value % 3), tilt_direction=40.0 * value, body_bgr=body, pip_bgr=pips)
        for value in range(1, 7)
    )  # fmt: skip
    return Scene(640, 480, table, colour, dice, Effects(noise_sigma=2, jpeg_quality=85), seed=int(size))


@pytest.mark.parametrize("size", [36.0, 64.0])
def test_rendered_faces_of_every_value_are_read(classifier: DieFaceClassifier, size: float) -> None:
    for (body, pips, table, colour), angle in itertools.product(LOOKS, (0.0, 33.0)):
        scene = render(six_dice(body, pips, table, colour, size, angle))
        probabilities = classifier.predict(scene.frame, scene.boxes)
        assert probabilities.shape == (6, 7)
        assert np.allclose(probabilities.sum(axis=1), 1.0, atol=1e-4)
        assert list(probabilities.argmax(axis=1) + 1) == list(scene.values), (body, table, angle)


def test_bare_table_is_not_a_die_face(classifier: DieFaceClassifier) -> None:
    frame = render(Scene(320, 240, "felt", (50, 110, 40), seed=2)).frame
    boxes = [DieBox(80, 80, 40, 40, 10), DieBox(200, 150, 50, 50, 0)]
    assert list(classifier.predict(frame, boxes).argmax(axis=1)) == [NOT_A_DIE, NOT_A_DIE]


def test_no_boxes_gives_an_empty_table(classifier: DieFaceClassifier) -> None:
    assert classifier.predict(np.zeros((10, 10, 3), np.uint8), []).shape == (0, 7)


def test_shipped_model_is_small_and_found() -> None:
    path = default_model_path()
    assert path.is_file() and path.name == "die_face.onnx"
    assert path.stat().st_size <= 2 * 1024 * 1024


def test_missing_model_is_a_clear_error(tmp_path) -> None:
    with pytest.raises(ModelError, match="not found"):
        DieFaceClassifier(tmp_path / "nothing.onnx")


@pytest.mark.parametrize("content", [b"", b"not an onnx model at all", b"\x08\x07" * 300])
def test_corrupt_model_is_a_clear_error(tmp_path, content: bytes) -> None:
    path = tmp_path / "broken.onnx"
    path.write_bytes(content)
    with pytest.raises(ModelError, match="broken.onnx"):
        DieFaceClassifier(path)


def test_truncated_copy_of_the_real_model_is_refused(tmp_path) -> None:
    path = tmp_path / "half.onnx"
    data = default_model_path().read_bytes()
    path.write_bytes(data[: len(data) // 2])
    with pytest.raises(ModelError):
        DieFaceClassifier(path)


def test_cost_of_six_dice_per_frame(benchmark, classifier: DieFaceClassifier) -> None:
    scene = render(Scene(1280, 720, "felt", (50, 110, 40), tuple(
        DieSpec(v, 150 + 180 * v, 300 + 40 * (v % 2), 50, angle=11 * v) for v in range(1, 7)), seed=1))  # fmt: skip
    probabilities = benchmark(classifier.predict, scene.frame, scene.boxes)
    assert list(probabilities.argmax(axis=1) + 1) == list(scene.values)


@pytest.mark.parametrize(
    "frame", [np.zeros((40, 40), np.uint8), np.zeros((40, 40, 4), np.uint8), np.zeros((40, 40, 3), np.float32)]
)
def test_frame_that_is_not_bgr_is_refused(classifier: DieFaceClassifier, frame: np.ndarray) -> None:
    with pytest.raises(ValueError, match="BGR uint8"):
        classifier.predict(frame, [DieBox(20, 20, 10, 10)])


def test_missing_onnxruntime_is_a_model_error(monkeypatch) -> None:
    monkeypatch.setitem(sys.modules, "onnxruntime", None)  # makes `import onnxruntime` fail
    with pytest.raises(ModelError, match="onnxruntime is not installed"):
        load_default_classifier()
