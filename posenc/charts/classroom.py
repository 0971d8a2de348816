"""The class vote chart: how many picked each option of a Predict, round beside round (no streamlit).

Horizontal bars, one per option and round (round 1 above round 2 within an option), each with its count and
share printed at its end so a hall reads it without hovering; rounds differ by colour AND by the printed
"round N" and by the bar's fill (round 1 hatched lighter, the latest solid). Once revealed, the right option's
label says so in words.
"""

from __future__ import annotations

from collections.abc import Sequence

import altair as alt

from ..core import listing
from .spec import SERIES, TEXT, Figure, columns, figure, layout, named

BAR_PX = 26  # one bar's thickness (room for the 18 px text of presentation mode)
COUNT_PX = 13  # the printed counts (as the axis text; grown with it while projecting)
LABEL_CHARS = 38  # option labels longer than this are cut (with …) on the axis; the full text is in the tooltip


def _short(text: str) -> str:
    return text if len(text) <= LABEL_CHARS else text[: LABEL_CHARS - 1] + "…"


def option_labels(options: Sequence[str], correct: int | None) -> list[str]:
    """Axis labels: numbered as on screen (1-based), the right one marked in words once revealed."""
    return [f"{i + 1}. {_short(o)}" + (" — the answer" if correct == i else "") for i, o in enumerate(options)]


@layout
def _votes_layout(labels: Sequence[str], rounds: int) -> alt.Chart:
    """The layout holds no count: the x scale spans the data (and each row's ``room``, an unseen mark leaving
    space right of the bar for its printed count), so a new vote swaps the data and keeps the drawn chart."""
    names = [f"round {r}" for r in range(1, rounds + 1)]
    colours = [SERIES[(r - 1) % len(SERIES)] for r in range(1, rounds + 1)]
    base = alt.Chart(named("votes")).encode(
        y=alt.Y("label:N", sort=list(labels), title=None, axis=alt.Axis(labelLimit=360, labelColor=TEXT)),
        yOffset=alt.YOffset("round_name:N", sort=names),
    )
    bars = base.mark_bar(aria=False, height=BAR_PX * 0.8).encode(
        x=alt.X("votes:Q", title="students", scale=alt.Scale(zero=True, nice=False),
                axis=alt.Axis(tickMinStep=1, format="d")),
        color=alt.Color("round_name:N", scale=alt.Scale(domain=names, range=colours), title=None,
                        legend=None),
        opacity=alt.condition(alt.datum.latest, alt.value(1.0), alt.value(0.55)),
        tooltip=[alt.Tooltip("option:N", title="option"), alt.Tooltip("round_name:N", title="round"),
                 alt.Tooltip("votes:Q", title="votes"), alt.Tooltip("share:Q", title="share", format=".0%")],
    )
    text = base.mark_text(aria=False, align="left", dx=4, color=TEXT, fontSize=COUNT_PX).encode(
        x=alt.X("votes:Q"), text=alt.Text("text:N"))
    room = base.mark_point(aria=False, opacity=0, size=1).encode(x=alt.X("room:Q"))
    return alt.layer(bars, text, room).properties(
        height={"step": BAR_PX}, width="container",
    )


def votes(options: Sequence[str], counts: dict[int, list[int]], *, correct: int | None = None,
          question: str = "") -> Figure:
    """The figure of a question's votes: ``counts`` = {round: [votes per option]}; ``correct`` (the right
    option's index) once the teacher has revealed it. The printed counts are COUNT_PX, 18 px while projecting
    (as the axis text; ``spec.PRESENT_TEXT``)."""
    rounds = sorted(counts) or [1]
    counts = {r: list(counts.get(r, [0] * len(options))) for r in rounds}
    labels = option_labels(options, correct)
    rows: dict[str, list] = {k: [] for k in ("label", "option", "round_name", "votes", "share", "text", "latest",
                                             "room")}
    for r in rounds:
        total = sum(counts[r])
        for i, n in enumerate(counts[r]):
            share = n / total if total else 0.0
            rows["label"].append(labels[i])
            rows["option"].append(options[i])
            rows["round_name"].append(f"round {r}")
            rows["votes"].append(int(n))
            rows["share"].append(share)
            rows["text"].append(f"round {r}: {n} ({share:.0%})" if len(rounds) > 1 else f"{n} ({share:.0%})")
            rows["latest"].append(r == rounds[-1])
    top = max([max(v) for v in counts.values()] + [1])
    rows["room"] = [int(top * 1.8) + 1] * len(rows["votes"])  # room right of the longest bar for its count
    totals = ", ".join(f"round {r}: {sum(counts[r])} answered" for r in rounds)
    last = counts[rounds[-1]]
    leads = [i for i in range(len(options)) if last[i] == max(last)]
    tied = listing(f"“{_short(options[i])}”" for i in leads)
    most = ("no votes yet" if not sum(last) else f"most picked {tied} ({last[leads[0]]})" if len(leads) == 1
            else f"{tied} tie with {last[leads[0]]} each")
    # the counts change with every vote: they are read out after the chart, its name stays (spec.figure)
    asked = question.strip()
    asked += "" if not asked or asked[-1] in ".?!" else "."
    reading = f"{'The question: ' + asked + ' ' if asked else ''}Votes so far — {totals}; in the latest round, {most}."
    per = " and round, the latest round solid" if len(rounds) > 1 else ""
    return figure(_votes_layout(labels, len(rounds)),
                  {"votes": columns(**rows)},
                  description=f"Class votes: how many students picked each option, one bar per option{per}.",
                  reading=reading)
