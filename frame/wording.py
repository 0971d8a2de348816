"""How a page writes numbers in its prose, so that a sentence reads true at every setting: two different numbers
never rounded to one, thousands commas that KaTeX does not space out, shares in words (a count and its noun: posenc.core.count; a ratio: posenc.core.times)."""

from __future__ import annotations


def tex_num(x: float, fmt: str) -> str:
    """A number for inside $…$: thousands commas as {,} so KaTeX adds no space after them."""
    return format(x, fmt).replace(",", "{,}")


def apart(a: float, b: float) -> tuple[str, str]:
    """Two different numbers written with enough digits that they read as different (47,117 and 62,832; 12.53
    and 12.57), never rounded to one."""
    for digits in range(0, 9):
        fa, fb = f"{a:,.{digits}f}", f"{b:,.{digits}f}"
        if fa != fb or a == b:
            if digits == 0 and max(abs(a), abs(b)) < 100:
                continue  # small numbers keep a decimal or more
            return fa, fb
    return f"{a:.10g}", f"{b:.10g}"


def share(k: int, n: int, plural: str) -> str:
    """k of n things, said as a share: “both queries”, “all 5 queries”, “3 of your 5 queries”."""
    return f"both {plural}" if k == n == 2 else f"all {n} {plural}" if k == n else f"{k} of your {n} {plural}"
