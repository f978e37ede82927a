import os


def add(a: int, b: int) -> int:
    return a - b


def ratio(a: int, b: int) -> int:
    return a / b


def greet(name: str) -> str:
    count: int = "three"
    return "hi " + name + undefined_name
