"""Golden images: every scene of display/gallery.py, on both kinds of sign, as the players see
it, compared pixel for pixel with the reviewed pictures in tests/sign/golden/ (small) and
docs/sign/ (the pictures docs/sign.md shows). After an intended change: ``make sign-docs``,
look at the pictures, commit them."""

from pathlib import Path

import pytest
from PIL import Image, ImageChops

from display.gallery import SCENES, SIGNS, picture

ROOT = Path(__file__).resolve().parents[2]
CASES = [(sign, scene) for sign in SIGNS for scene in SCENES]
IDS = [f"{sign}-{scene.name}" for sign, scene in CASES]


def assert_same(actual: Image.Image, path: Path, tmp_path: Path) -> None:
    assert path.exists(), f"{path} is missing: run `make sign-docs`"
    expected = Image.open(path).convert("RGB")
    if actual.size != expected.size or ImageChops.difference(actual, expected).getbbox():
        actual.save(tmp_path / path.name)
        pytest.fail(f"{path.name} differs from the rendering (now in {tmp_path / path.name})")


@pytest.mark.parametrize(("sign", "scene"), CASES, ids=IDS)
def test_scene_matches_golden(sign, scene, tmp_path):
    scale = 3 if sign == "matrix" else 2
    path = ROOT / "tests" / "sign" / "golden" / f"{sign}-{scene.name}.png"
    assert_same(picture(sign, scene, scale), path, tmp_path)


@pytest.mark.parametrize(("sign", "scene"), CASES, ids=IDS)
def test_docs_show_what_the_code_draws(sign, scene, tmp_path):
    scale = 8 if sign == "matrix" else 3
    name = f"{sign}-{scene.name}.png"
    assert_same(picture(sign, scene, scale), ROOT / "docs" / "sign" / name, tmp_path)
    assert f"sign/{name}" in (ROOT / "docs" / "sign.md").read_text(), f"docs/sign.md lacks {name}"


def test_golden_set_has_no_strays():
    names = {f"{i}.png" for i in IDS}
    for folder in (ROOT / "tests" / "sign" / "golden", ROOT / "docs" / "sign"):
        assert {p.name for p in folder.glob("*.png")} == names
