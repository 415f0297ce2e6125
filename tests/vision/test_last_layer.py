from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from tests.vision.test_adapt import table_scene
from vision.adapt.last_layer import LastLayerFix, TableClassifier, softmax
from vision.adapt.learner import TableLearner, build
from vision.adapt.memory import NOT_A_DIE, TableMemory, crops_of
from vision.read.classifier import DieFaceClassifier, ModelError, load_default_classifier
from vision.read.crops import crop_dice
from vision.read.reader import DiceReader
from vision.synth.clutter import draw_chip, draw_coin
from vision.synth.render import DieSpec, Scene, render
from vision.types import DieBox, DieReading


@pytest.fixture(scope="module")
def classifier() -> DieFaceClassifier:
    return load_default_classifier()


def clusters(rng: np.random.Generator, count: int) -> tuple[np.ndarray, np.ndarray]:
    """Features of two kinds of dice: a kind the shipped layer reads as 5 though it is 6, and a
    kind it reads right as 2 (features in separate halves, as pooled ReLU features are)."""
    wrong = np.concatenate([rng.uniform(1.0, 2.0, (count, 8)), np.zeros((count, 8))], axis=1)
    right = np.concatenate([np.zeros((count, 8)), rng.uniform(1.0, 2.0, (count, 8))], axis=1)
    return wrong, right


def shipped_logits(count: int, face: int) -> np.ndarray:
    logits = np.zeros((count, 7))
    logits[:, face - 1] = 2.0
    return logits


def test_a_fitted_layer_reads_the_dice_the_shipped_one_got_wrong_and_keeps_the_rest() -> None:
    rng = np.random.default_rng(0)
    wrong, right = clusters(rng, 12)
    embeddings = np.concatenate([wrong, right])
    logits = np.concatenate([shipped_logits(12, 5), shipped_logits(12, 2)])
    fix = LastLayerFix.fit(embeddings, logits, [6] * 12 + [2] * 12)
    assert fix.dice == 24 and fix.weights.shape == (7, 16) and fix.bias.shape == (7,)
    new_wrong, new_right = clusters(np.random.default_rng(1), 20)  # later throws of the table
    assert (fix.probabilities(new_wrong, shipped_logits(20, 5)).argmax(axis=1) == 5).all()
    assert (fix.probabilities(new_right, shipped_logits(20, 2)).argmax(axis=1) == 1).all()


def test_a_strong_penalty_keeps_the_shipped_layer() -> None:
    wrong, _ = clusters(np.random.default_rng(2), 5)
    logits = shipped_logits(5, 5)
    loose = LastLayerFix.fit(wrong, logits, [6] * 5)
    tight = LastLayerFix.fit(wrong, logits, [6] * 5, strength=1e6)
    assert np.abs(tight.weights).max() < 1e-3 and np.abs(tight.bias).max() < 1e-3
    assert np.abs(loose.weights).max() > 100 * np.abs(tight.weights).max()
    assert np.allclose(tight.probabilities(wrong, logits), softmax(logits), atol=1e-3)


def test_dice_alone_reorder_the_faces_and_leave_how_sure_it_is_that_a_crop_is_no_die() -> None:
    rng = np.random.default_rng(5)
    wrong, right = clusters(rng, 12)
    logits = np.concatenate([shipped_logits(12, 5), shipped_logits(12, 2)])
    logits[:, 6] = 1.0  # the shipped layer has some doubt that these are dice at all
    fix = LastLayerFix.fit(np.concatenate([wrong, right]), logits, [6] * 12 + [2] * 12)
    assert fix.not_dice == 0
    later, _ = clusters(np.random.default_rng(6), 20)
    later_logits = shipped_logits(20, 5)
    later_logits[:, 6] = 1.0
    fitted = fix.probabilities(later, later_logits)
    assert (fitted.argmax(axis=1) == 5).all()  # read as the 6 they are
    assert np.allclose(fitted[:, 6], softmax(later_logits)[:, 6], atol=1e-6)
    assert np.allclose(fitted.sum(axis=1), 1.0, atol=1e-6)


def test_readings_marked_as_no_die_teach_the_layer_what_is_none() -> None:
    rng = np.random.default_rng(7)
    spots, dice = clusters(rng, 10)  # a table's spots, which the shipped layer reads as a 5 (as `wrong`)
    logits = np.concatenate([shipped_logits(10, 5), shipped_logits(10, 2)])
    fix = LastLayerFix.fit(np.concatenate([spots, dice]), logits, [NOT_A_DIE] * 10 + [2] * 10)
    assert fix.dice == 20 and fix.not_dice == 10
    later_spots, later_dice = clusters(np.random.default_rng(8), 20)
    assert (fix.probabilities(later_spots, shipped_logits(20, 5))[:, 6] >= 0.9).all()
    assert (fix.probabilities(later_dice, shipped_logits(20, 2)).argmax(axis=1) == 1).all()
    without = LastLayerFix.fit(dice, shipped_logits(10, 2), [2] * 10)
    assert (without.probabilities(later_spots, shipped_logits(20, 5))[:, 6] < 0.5).all()


CHIP = (420.0, 400.0)  # where a poker chip lies on the table, away from the dice of `table_scene`


def with_chip(frame: np.ndarray) -> np.ndarray:
    """The frame with a chip that the shipped reader takes for a die (its colours drawn by seed 18)."""
    draw_chip(frame, *CHIP, 56.0, np.random.default_rng(18))
    return frame


def on_chip(reading: DieReading) -> bool:
    return bool(np.hypot(reading.box.cx - CHIP[0], reading.box.cy - CHIP[1]) < 25)


def test_a_chip_the_players_mark_as_no_die_is_read_no_more(tmp_path: Path, classifier: DieFaceClassifier) -> None:
    reader = DiceReader(classifier)
    learner = TableLearner(tmp_path / "memory", reader)
    for seed in range(40, 44):
        frame, dice = table_scene(seed, 3)
        readings = reader.read(with_chip(frame))
        faces = [
            NOT_A_DIE if on_chip(r) else min(dice, key=lambda d: np.hypot(d.cx - r.box.cx, d.cy - r.box.cy)).value
            for r in readings
        ]
        learner.learn(crops_of(frame, readings), faces, [r.value for r in readings], [0.9] * len(readings))
    fix = learner.classifier_fix
    assert fix is not None and fix.not_dice >= 2
    fooled = 0
    for seed in range(60, 70):  # later throws: the dice are read, the chip is not
        frame, dice = table_scene(seed, 3)
        fooled += any(on_chip(r) for r in reader.read(with_chip(frame)))
        assert sorted(r.value for r in learner.reader.read(frame)) == sorted(d.value for d in dice)
    assert fooled >= 3, "the shipped reader must take the chip for a die, or this test shows nothing"


def test_the_shipped_classifier_gives_the_features_its_probabilities_come_from(classifier: DieFaceClassifier) -> None:
    frame, dice = table_scene(3, 4)
    crops = crop_dice(frame, [DieBox(d.cx, d.cy, d.size, d.size, d.angle) for d in dice])
    embeddings, logits = classifier.features(crops)
    assert classifier.has_features and embeddings.shape[0] == logits.shape[0] == 4 and logits.shape[1] == 7
    assert (embeddings >= 0).all()  # pooled after a ReLU
    probabilities = classifier.predict_crops(crops)
    assert np.allclose(softmax(logits), probabilities, atol=1e-5)
    unchanged = LastLayerFix(np.zeros((7, embeddings.shape[1]), np.float32), np.zeros(7, np.float32), 0)
    assert np.allclose(TableClassifier(classifier, unchanged).predict_crops(crops), probabilities, atol=1e-5)
    assert TableClassifier(classifier, unchanged).predict(frame, []).shape == (0, 7)


def test_the_learner_fits_the_live_readers_classifier_and_again_at_the_next_start(
    tmp_path: Path, classifier: DieFaceClassifier
) -> None:
    reader = DiceReader(classifier)
    learner = TableLearner(tmp_path / "memory", reader)
    assert learner.classifier_fix is None and learner.reader.inner is reader
    for seed in range(20, 23):
        frame, dice = table_scene(seed, 5)
        readings = reader.read(frame)
        assert len(readings) == 5
        faces = [min(dice, key=lambda d: np.hypot(d.cx - r.box.cx, d.cy - r.box.cy)).value for r in readings]
        learner.learn(crops_of(frame, readings), faces, [r.value for r in readings], [0.9] * 5)
    fix = learner.classifier_fix
    assert fix is not None and fix.dice == 15
    live = learner.reader.inner
    assert isinstance(live, DiceReader) and isinstance(live.classifier, TableClassifier)
    assert live.detector is reader.detector and live.settings is reader.settings
    frame, dice = table_scene(30, 5)  # a later throw is still read, each die once
    assert sorted(r.value for r in learner.reader.read(frame)) == sorted(d.value for d in dice)

    again = TableLearner(tmp_path / "memory", reader)  # the next server start
    assert again.classifier_fix is not None and np.allclose(again.classifier_fix.weights, fix.weights)

    report = build(TableMemory(tmp_path / "memory"), reader)  # `dicekeeper adapt`
    assert report.dice == 15 and report.classifier_right is not None and report.fitted_right is not None
    assert 0 <= report.fitted_right <= 15 and report.classifier_right >= 13


def test_a_reader_without_the_shipped_classifier_is_not_fitted(tmp_path: Path) -> None:
    reader = DiceReader(None, mode="pips")
    learner = TableLearner(tmp_path / "memory", reader)
    frame, dice = table_scene(5, 3)
    boxes = [DieBox(d.cx, d.cy, d.size, d.size, d.angle) for d in dice]
    crops = crop_dice(frame, boxes)
    learner.learn(crops, [d.value for d in dice], [d.value for d in dice], [0.9] * 3)
    assert learner.classifier_fix is None and learner.reader.inner is reader
    report = build(TableMemory(tmp_path / "memory"), reader)
    assert report.classifier_right is None and report.fitted_right is None


MODELS = Path(__file__).resolve().parents[2] / "models"


@pytest.mark.parametrize(
    "path", [MODELS / "die_face.onnx", *sorted((MODELS / "lodo").glob("*_classifier.onnx"))], ids=lambda p: p.name
)
def test_every_committed_classifier_can_be_fitted_to_a_table(path: Path) -> None:
    model = DieFaceClassifier(path)
    crops = np.random.default_rng(4).integers(0, 256, (3, 32, 32, 3), dtype=np.uint8)
    embeddings, logits = model.features(crops)
    width = json.loads(path.with_suffix(".json").read_text()).get("width", 1.0)  # as it was trained
    assert model.has_features and embeddings.shape == (3, round(96 * width))
    assert np.allclose(softmax(logits), model.predict_crops(crops), atol=1e-5)


def test_adding_the_outputs_keeps_the_probabilities_and_is_done_once(tmp_path: Path) -> None:
    import onnx

    from models.feature_outputs import add_feature_outputs

    bare = onnx.load(str(MODELS / "die_face.onnx"))
    del bare.graph.output[1:]  # as torch exports it: the probabilities alone
    path = tmp_path / "exported.onnx"
    onnx.save(bare, str(path))
    crops = np.random.default_rng(5).integers(0, 256, (4, 32, 32, 3), dtype=np.uint8)
    assert not DieFaceClassifier(path).has_features
    with pytest.raises(ModelError, match="gives no features"):
        DieFaceClassifier(path).features(crops)
    assert add_feature_outputs(path) and not add_feature_outputs(path)
    model, shipped = DieFaceClassifier(path), DieFaceClassifier(MODELS / "die_face.onnx")
    assert model.has_features and np.array_equal(model.predict_crops(crops), shipped.predict_crops(crops))
    for ours, theirs in zip(model.features(crops), shipped.features(crops)):
        assert np.array_equal(ours, theirs)


COIN = (420.0, 400.0)


def with_coin(frame: np.ndarray) -> np.ndarray:
    """The frame with a coin that the shipped reader takes for a one, and its fitted layer too."""
    draw_coin(frame, *COIN, 56.0, np.random.default_rng(1))
    return frame


def on_coin(reading: DieReading) -> bool:
    return bool(np.hypot(reading.box.cx - COIN[0], reading.box.cy - COIN[1]) < 25)


def test_a_coin_left_lying_where_players_marked_it_is_dropped_but_a_die_there_is_read(
    tmp_path: Path, classifier: DieFaceClassifier
) -> None:
    reader = DiceReader(classifier)
    learner = TableLearner(tmp_path / "memory", reader)
    for seed in (40, 41):
        frame, dice = table_scene(seed, 3)
        readings = reader.read(with_coin(frame))
        assert any(on_coin(r) for r in readings), "the shipped reader must take the coin for a die"
        faces = [
            NOT_A_DIE if on_coin(r) else min(dice, key=lambda d: np.hypot(d.cx - r.box.cx, d.cy - r.box.cy)).value
            for r in readings
        ]
        learner.learn(
            crops_of(frame, readings),
            faces,
            [r.value for r in readings],
            [0.9] * len(readings),
            [r.box for r in readings],
        )
    assert len(learner.reader.spots or []) == 2
    for seed in (50, 51):
        frame, dice = table_scene(seed, 3)
        assert any(on_coin(r) for r in reader.read(with_coin(frame)))
        assert sorted(r.value for r in learner.reader.read(frame)) == sorted(d.value for d in dice)
    on_spot = DieSpec(5, *COIN, 56.0, angle=20.0, body_bgr=(200, 230, 240), pip_bgr=(30, 60, 110))
    frame, dice = table_scene(52, 3)
    frame = render(
        Scene(640, 480, background="felt", background_bgr=(120, 60, 30), dice=(*dice, on_spot), seed=52)
    ).frame  # the coin picked up, and a die landed where it lay
    assert sorted(r.value for r in learner.reader.read(frame)) == sorted(d.value for d in (*dice, on_spot))
    again = TableLearner(tmp_path / "memory", reader)  # the next start remembers the spots
    assert again.reader.spots is not None and len(again.reader.spots) == 2
