"""Build hook: ship the trained models from `models/` inside the `vision` package."""

from pathlib import Path

from setuptools import setup
from setuptools.command.build_py import build_py


class BuildPyWithModels(build_py):
    def run(self) -> None:
        super().run()
        target = Path(self.build_lib) / "vision" / "models"
        self.mkpath(str(target))
        for model in sorted(Path(__file__).parent.joinpath("models").glob("*.onnx")):
            self.copy_file(str(model), str(target / model.name))


setup(cmdclass={"build_py": BuildPyWithModels})
