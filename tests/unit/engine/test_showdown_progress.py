"""``count_showdowns`` reports its progress in board classes (``croupier par``'s bar) without
changing a single count, in one process or several."""

from __future__ import annotations

import pytest

from controller.engine.poker.showdown import BoardClasses, board_classes, count_showdowns


@pytest.fixture(scope="module")
def some_classes() -> BoardClasses:
    every = board_classes()
    return BoardClasses(*(a[::10] for a in (every.rank_counts, every.live_mask, every.weight)))


@pytest.mark.parametrize("workers", [1, 2])
def test_progress_counts_every_class_once_and_changes_nothing(
    some_classes: BoardClasses, workers: int
) -> None:
    seen: list[tuple[int, int]] = []
    counted = count_showdowns(
        some_classes, workers=workers, progress=lambda d, t: seen.append((d, t))
    )
    n = len(some_classes)
    assert len(seen) > workers  # several parts a worker: the bar moves
    assert [d for d, _ in seen] == sorted({d for d, _ in seen})  # strictly forward
    assert seen[-1] == (n, n)
    assert {t for _, t in seen} == {n}
    assert counted == count_showdowns(some_classes, workers=1)
