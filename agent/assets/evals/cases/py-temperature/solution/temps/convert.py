"""Temperature conversions."""

import re

_TEMPERATURE = re.compile(r"\s*(-?\d+(?:\.\d+)?)\s*([cCfF])\s*")


def c_to_f(celsius: float) -> float:
    return round(celsius * 9 / 5 + 32, 2)


def f_to_c(fahrenheit: float) -> float:
    return round((fahrenheit - 32) * 5 / 9, 2)


def parse_temperature(text: str) -> tuple[float, str]:
    found = _TEMPERATURE.fullmatch(text)
    if found is None:
        raise ValueError(f"not a temperature: {text!r}")
    return float(found.group(1)), found.group(2).upper()
