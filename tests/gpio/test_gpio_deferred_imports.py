"""gpiozero imported without importlib.metadata and importlib.resources, which it needs only
later (drivers/gpio/deferred_imports.py); what it later asks of them still works."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from drivers.gpio.deferred_imports import DeferredModule, defer_standard_imports

REPO = Path(__file__).resolve().parents[2]

FRESH = """
import os, sys
import drivers.gpio
import gpiozero, gpiozero.pins.mock
print(sorted(m for m in ("importlib.metadata", "importlib.resources") if m in sys.modules))
os.environ["GPIOZERO_MOCK_PIN_CLASS"] = "mockpwmpin"  # gpiozero's entry_points, by name
print(gpiozero.pins.mock.MockFactory().pin_class.__name__)
import importlib_metadata, importlib_resources
print(importlib_metadata.version("gpiozero"), importlib_resources.files("gpiozero").name)
print(sorted(m for m in ("importlib.metadata", "importlib.resources") if m in sys.modules))
import importlib.util  # a library probing for the backport gets an answer, not ValueError
print(importlib.util.find_spec("importlib_metadata").name)
"""


def test_gpiozero_imports_without_them_and_finds_them_when_asked():
    out = subprocess.run(
        [sys.executable, "-c", FRESH], capture_output=True, text=True, check=True, cwd=REPO
    ).stdout.splitlines()
    assert out[0] == "[]"  # nothing of the two at gpiozero's import
    assert out[1] == "MockPWMPin"
    assert out[2].split() == [deferred_version(), "gpiozero"]
    assert out[3] == "['importlib.metadata', 'importlib.resources']"
    assert out[4] == "importlib_metadata"


def deferred_version() -> str:
    from importlib.metadata import version

    return version("gpiozero")


def test_a_stand_in_has_no_file_and_gives_the_standard_modules_names():
    module = DeferredModule("importlib_resources", "importlib.resources")
    with pytest.raises(AttributeError):
        module.__file__  # noqa: B018 - the attribute is what is tested
    import importlib.resources

    assert module.files is importlib.resources.files


def test_an_installed_or_imported_backport_is_left_alone(tmp_path, monkeypatch):
    (tmp_path / "importlib_resources.py").write_text("")  # installed, not imported
    monkeypatch.syspath_prepend(str(tmp_path))
    imported = object()
    monkeypatch.delitem(sys.modules, "importlib_resources", raising=False)
    monkeypatch.setitem(sys.modules, "importlib_metadata", imported)
    defer_standard_imports()
    assert sys.modules["importlib_metadata"] is imported
    assert "importlib_resources" not in sys.modules
