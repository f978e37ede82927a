from app.calc import add, ratio


def test_add():
    assert add(1, 2) == 3


def test_ratio():
    assert ratio(1, 0) == 0


def test_ok():
    assert add(0, 0) == 0
