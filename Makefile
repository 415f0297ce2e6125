PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin

.PHONY: run test bench install clean

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip "setuptools>=77" wheel

$(VENV)/.installed: pyproject.toml | $(BIN)/python
	$(BIN)/python -m pip install --quiet -e '.[test]'
	touch $@

install: $(VENV)/.installed

run: install
	$(BIN)/dicekeeper serve

test: install
	$(BIN)/python -m pytest

bench: install
	$(BIN)/python -m pytest --benchmark-enable --benchmark-only -p no:randomly tests

clean:
	rm -rf $(VENV) build *.egg-info
