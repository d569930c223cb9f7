"""`croupier sign test` and `croupier sign show` in-process on the dummy device: the frame
they print and write is read back independently (display.reader)."""

import importlib.util
import json
from pathlib import Path

import pytest
from PIL import Image, ImageChops

from controller.cli.main import main
from display.geometry import Matrix, SevenSegment
from display.preview import preview
from display.reader import read


def run(capsys, *argv):
    status = main(list(argv))
    out, err = capsys.readouterr()
    return status, out, err


def matrix_frame(rows):
    """The frame back from the printed LED rows."""
    width = len(rows[0])
    return Matrix(width).frame(
        [sum(1 << y for y in range(8) if rows[y][x] == "#") for x in range(width)]
    )


def seven_segment_config(tmp_path):
    path = tmp_path / "table.toml"
    path.write_text(
        '[sign]\nkind = "seven-segment"\ncascaded = 1\nbackend = "dummy"\nroll_seconds = 0.2\n'
    )
    return str(path)


def test_show_an_amount_on_the_matrix(capsys):
    status, out, _ = run(capsys, "sign", "show", "1234.56", "--backend", "dummy", "--json")
    assert status == 0
    report = json.loads(out)
    assert report["amount"] == "EUR 1,234.56"
    assert read(matrix_frame(report["rows"])) == "€1,234.56"
    assert report["frames_sent"] == 1


def test_png_off_the_pi_draws_the_picture_without_driving_a_sign(capsys, tmp_path):
    """Off the Pi (no SPI node) ``--png`` needs no ``--backend``: the picture alone, the same
    one luma's dummy device gives, and no sign is said to be driven."""
    if Path("/dev/spidev0.0").exists():
        pytest.skip("a Pi: the configured sign would be driven")
    drawn, dummy = tmp_path / "drawn.png", tmp_path / "dummy.png"
    status, out, _ = run(capsys, "sign", "show", "5001.80", "--png", str(drawn))
    assert status == 0
    lines = out.splitlines()
    assert (
        lines[0]
        == "no SPI sign here (/dev/spidev0.0): only the picture is drawn (or --backend dummy)"
    )
    assert lines[1] == "sign (matrix, 64 columns): not driven"
    status, out, _ = run(capsys, "sign", "show", "5001.80", "--png", str(drawn), "--json")
    report = json.loads(out)
    assert (report["backend"], report["frames_sent"]) == (None, 0)
    assert read(matrix_frame(report["rows"])) == "€5,001.80"
    run(capsys, "sign", "show", "5001.80", "--png", str(dummy), "--backend", "dummy")
    assert drawn.read_bytes() == dummy.read_bytes()


@pytest.mark.parametrize(
    ("extra", "option"),
    [(("--duration", "2"), "--duration"), (("--capture", "c.gif"), "--capture")],
)
@pytest.mark.parametrize("command", [("show", "12"), ("test",)], ids=["show", "test"])
def test_driving_options_off_the_pi_without_a_backend_are_usage_errors(
    capsys, tmp_path, command, extra, option
):
    """They are about a driven sign; with no sign here they did nothing, silently."""
    if Path("/dev/spidev0.0").exists():
        pytest.skip("a Pi: the configured sign would be driven")
    png = tmp_path / "s.png"
    status, out, err = run(capsys, "sign", *command, "--png", str(png), *extra)
    assert status == 2 and out == "" and not png.exists()
    assert err == (
        f"croupier sign: {option}: no SPI sign here (/dev/spidev0.0) to drive;"
        " name --backend dummy or --backend capture\n"
    )


def test_a_bad_amount_is_said_before_anything_about_the_sign(capsys, tmp_path):
    status, out, err = run(capsys, "sign", "show", "abc", "--png", str(tmp_path / "s.png"))
    assert (status, out) == (2, "")
    assert err == "croupier sign: 'abc' is not an amount like 1234.56\n"


def test_the_currency_is_read_in_any_case(capsys):
    """`sign show 1 --currency eur` was refused with no hint that EUR was meant."""
    argv = ["sign", "show", "1", "--backend", "dummy", "--json", "--currency"]
    status, out, _ = run(capsys, *argv, "usd")
    assert status == 0 and json.loads(out)["amount"].startswith("USD ")
    status, out, err = run(capsys, *argv, "eru")
    assert status == 2 and "unknown currency 'ERU' (the sign knows EUR, USD" in err


def test_show_rolls_up_from_a_lower_amount(capsys, tmp_path):
    config = seven_segment_config(tmp_path)
    argv = ("sign", "show", "1000.50", "--from", "999.00", "--config", config, "--json")
    report = json.loads(run(capsys, *argv)[1])
    assert report["text"] == "  1000.50"  # right-aligned on 8 digits
    assert report["frames_sent"] > 2  # rolled up through intermediate amounts


def test_show_writes_the_png_the_players_see(capsys, tmp_path):
    png = tmp_path / "sign.png"
    status, out, _ = run(
        capsys, "sign", "show", "77", "--config", seven_segment_config(tmp_path), "--png", str(png)
    )
    assert status == 0
    assert f"wrote {png}" in out
    expected = preview(SevenSegment(8).static("77.00"), 3, level=8)
    assert not ImageChops.difference(Image.open(png).convert("RGB"), expected).getbbox()
    assert "|_" in out  # the seven-segment text art


def test_show_overflow_says_so(capsys, tmp_path):
    status, out, _ = run(
        capsys, "sign", "show", "123456789", "--config", seven_segment_config(tmp_path)
    )
    assert status == 0
    assert "does not fit the sign: dashes shown" in out


def test_bad_amount_is_one_line(capsys):
    status, out, err = run(capsys, "sign", "show", "12.345", "--backend", "dummy")
    assert (status, out) == (2, "")
    assert err == "croupier sign: '12.345' has more than 2 decimals for EUR\n"


def test_pattern_at_a_moment(capsys):
    argv = ("sign", "test", "digits", "--backend", "dummy", "--at", "1.0", "--duration", "0")
    status, out, _ = run(capsys, *argv, "--json")
    assert status == 0
    frame = matrix_frame(json.loads(out)["rows"])
    third_module = list(range(16, 24))
    assert [x for x, col in enumerate(frame.cells) if col] == third_module


def test_brightness_pattern_reports_its_level(capsys):
    argv = ("sign", "test", "brightness", "--backend", "dummy", "--at", "2.6", "--duration", "0")
    status, out, _ = run(capsys, *argv, "--json")
    assert status == 0
    assert json.loads(out)["level"] == 5


def test_a_short_pattern_run_drives_the_device(capsys):
    argv = ("sign", "test", "digits", "--backend", "dummy", "--duration", "0.6", "--json")
    report = json.loads(run(capsys, *argv)[1])
    assert report["frames_sent"] == 2  # 0.5 s per step: the first and the second module


def test_no_sign_table_is_one_line(capsys, tmp_path):
    path = tmp_path / "table.toml"
    path.write_text("[gpio]\n")
    status, _, err = run(capsys, "sign", "test", "--config", str(path))
    assert status == 1
    assert err == f"croupier sign: {path}: no [sign] table\n"


def test_spi_off_the_pi_is_one_line(capsys):
    if importlib.util.find_spec("spidev") is not None:
        return  # on a Pi this would drive the real sign
    status, _, err = run(capsys, "sign", "test", "--backend", "spi", "--duration", "0")
    assert status == 1
    assert "spidev is not installed" in err
