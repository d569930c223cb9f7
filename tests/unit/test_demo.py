from controller import demo


def test_demo_deals_and_settles_in_shuffler_order(capsys):
    assert demo.main() == 0
    out = capsys.readouterr().out
    assert out.count("--- round") == 3
    assert out.count("seat 1:") == 3
    assert "PRG-3" in out


def test_simple_decision_is_legal_uth4():
    from controller.cards import parse_cards

    assert demo.simple_decision(parse_cards("As 2d"), parse_cards("3c 7d 9h Js Qs")) == ["4x"]
    assert demo.simple_decision(parse_cards("8s 2d"), parse_cards("3c 7d 9h Js Qs"))[-1] == "fold"
