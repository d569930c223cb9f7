"""How the rig reports scenarios: a pass/fail report for people, JUnit XML for CI."""

from __future__ import annotations

import xml.etree.ElementTree as ET
from collections.abc import Sequence

from controller.rig.play import ScenarioResult


def human(result: ScenarioResult, *, verbose: bool = False) -> list[str]:
    """The scenario's name and verdict, then each step (only the failed one unless
    ``verbose``), then the daemon's last lines when something failed."""
    s = result.scenario
    mark = "PASS" if result.ok else "FAIL"
    rules = f" [{', '.join(s.rules)}]" if s.rules else ""
    lines = [f"{mark} {s.source.name}: {s.name}{rules} ({result.seconds:.1f} s)"]
    if result.error:
        lines.append(f"     {result.error}")
    for step in result.steps:
        if verbose or not step.ok:
            ok = "ok  " if step.ok else "FAIL"
            detail = f": {step.detail}" if step.detail and (verbose or not step.ok) else ""
            lines.append(
                f"  {ok} {step.step.number:2d} {step.step.describe()}"
                f" ({step.seconds:.2f} s){detail}"
            )
    if not result.ok and result.log:
        lines.append("  croupierd's last lines:")
        lines += [f"    {line}" for line in result.log.splitlines()]
    return lines


def junit(results: Sequence[ScenarioResult], suite: str = "croupier-rig") -> str:
    """One ``testcase`` per scenario; its steps and the daemon's lines in ``system-out``."""
    counts = {
        "tests": str(len(results)),
        "failures": str(sum(not r.ok for r in results)),
        "time": f"{sum(r.seconds for r in results):.3f}",
    }
    root = ET.Element("testsuites", name=suite, **counts)
    ts = ET.SubElement(root, "testsuite", name=suite, errors="0", **counts)
    for r in results:
        case = ET.SubElement(
            ts,
            "testcase",
            classname=f"hil.{r.scenario.source.stem}",
            name=r.scenario.name,
            time=f"{r.seconds:.3f}",
        )
        if not r.ok:
            failure = ET.SubElement(case, "failure", message=r.failure or "failed")
            failure.text = "\n".join(human(r))
        out = ET.SubElement(case, "system-out")
        out.text = "\n".join(human(r, verbose=True))
    ET.indent(root)
    return ET.tostring(root, encoding="unicode", xml_declaration=True) + "\n"
