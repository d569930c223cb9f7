"""``round.last`` shows what a round paid, never which cards were dealt."""

import json
from pathlib import Path

from controller.engine.games import settle
from controller.engine.profiles import load_profile
from controller.table.commands import _without_cards

EXAMPLES = Path(__file__).resolve().parents[3] / "examples"


def test_settlements_lose_every_card_list_and_keep_the_money():
    for name in ("uth-gr-royal.json", "trilux-gr-split.json", "ch-bg-jumbo7.json"):
        record = json.loads((EXAMPLES / name).read_text())
        result = settle(load_profile(record["profile"]), record).to_json()
        public = _without_cards(result)
        assert '"cards"' in json.dumps(result) and '"cards"' not in json.dumps(public)
        paid = [w["paid"] for s in result["seats"] for w in s["wagers"].values()]
        assert [w["paid"] for s in public["seats"] for w in s["wagers"].values()] == paid
