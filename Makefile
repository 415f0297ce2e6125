PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin

.PHONY: run test lint bench install train train-crops train-frames clean screenshots

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip "setuptools>=77" wheel

$(VENV)/.installed: pyproject.toml | $(BIN)/python
	$(BIN)/python -m pip install --quiet -e '.[test]'
	touch $@

install: $(VENV)/.installed

run: install
	$(BIN)/dicekeeper serve

# The gates: style, formatting, types and the import contracts between the packages.
lint: install
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/mypy
	$(BIN)/lint-imports

# One worker a core; a module's tests stay on one worker, so its fixtures are built once.
test: lint
	$(BIN)/python -m pytest -n auto --dist loadscope

# Rewrites the pictures in docs/screenshots/ from the browser tests (make test never touches them).
screenshots: install
	DICEKEEPER_UPDATE_SCREENSHOTS=1 $(BIN)/python -m pytest -q -p no:randomly -m browser \
		tests/web/test_web_browser.py tests/web/test_web_browser_flow.py tests/web/test_web_table_view.py tests/web/test_web_look.py \
		tests/web/test_web_setup.py tests/web/test_web_history_manage.py

# Rebuilds the training data and both models from scratch (see docs/vision.md for its time on 2 cores).
# The two data steps run side by side: the crops take one core, the frames' workers share the other.
train: install
	$(BIN)/python -m pip install --quiet -e '.[train]'
	$(MAKE) -j2 train-crops train-frames
	$(BIN)/python models/train_detector.py --minutes 45 --threads 2 --card models/DETECTOR_CARD.md
	$(BIN)/python models/train.py --epochs 36 --threads 2 --keep-up --squash 0.3 --width 2 --seed 2 \
		--sets synthetic_mix.npz,real_train.npz,matteop65_train.npz,aws_train.npz

train-crops: install
	$(BIN)/python datasets/build_training_set.py --keep-up --no-plain

train-frames: install
	$(BIN)/python datasets/detector_scenes.py --count 16000 --seed 1

bench: install
	$(BIN)/python -m pytest --benchmark-enable --benchmark-only -p no:randomly tests

clean:
	rm -rf $(VENV) build *.egg-info .mypy_cache .ruff_cache
