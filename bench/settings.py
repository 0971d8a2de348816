"""The largest settings of every page: page path → URL query parameters (values as a URL carries them).

Read off each page's frame.slider / frame.number / frame.select / frame.toggle calls (their keys and maximum
values), plus the sidebar's running example at its largest: a 64-word sentence with repeated words,
d = 512 and a non-default seed. A page missing here is benchmarked at its defaults only, and the report
says so. Keep this in step with the pages: a key a page no longer reads shows up in the report as
"not applied".
"""

from __future__ import annotations

# 64 words (the most posenc.tokenize accepts), with "the", "cat", "mouse" and "dog" repeated.
LONG_SENTENCE = (
    "The cat chased the mouse across the kitchen floor and the mouse ran under the old wooden table "
    "where the dog was sleeping so the cat jumped over the dog and the dog woke up and barked at the "
    "cat while the mouse escaped through a small hole in the wall behind the warm stove and never came "
    "back to the kitchen again today"
)
assert len(LONG_SENTENCE.split()) == 64, len(LONG_SENTENCE.split())

SIDEBAR_LARGEST = {"sentence": LONG_SENTENCE, "d": "512", "seed": "7"}

LARGEST: dict[str, dict[str, str]] = {
    "lessons/home.py": {**SIDEBAR_LARGEST},
    # A random shuffle of all 64 words under the causal mask ("order" is read only in the Custom order mode).
    "lessons/scramble.py": {**SIDEBAR_LARGEST, "scramble": "Random shuffle", "shuffle": "9999",
                            "causal": "true"},
    # Every tab's slider and number at its maximum.
    "lessons/fixes.py": {**SIDEBAR_LARGEST, "fx_start": "2000", "fx_len": "1000", "fx_mpos": "1000",
                         "fx_width": "1000", "fx_past": "2000"},
    # N_MAX_OPTIONS[-1], POS_MAX, SENTENCE_OPTIONS[-1], median length 512.
    "lessons/learned.py": {**SIDEBAR_LARGEST, "lt_nmax": "2048", "lt_pos": "4096", "lt_sent": "1000000",
                           "lt_median": "512"},
    # posenc.binary_codes.MAX_BITS.
    "lessons/binary.py": {**SIDEBAR_LARGEST, "bn_bits": "10"},
    # sn_len = posenc.sinusoid_demo.MAX_LENGTH, sn_k = MAX_SHIFT, sn_pos = posenc.encodings.MAX_POSITION;
    # the query and key words at the two ends of the 64-word sentence (the table's width is the sidebar's d).
    "lessons/sinusoids.py": {**SIDEBAR_LARGEST, "sn_base": "1000000", "sn_len": "2000",
                             "sn_pos": "10000000", "sn_k": "100000", "sn_qw": "64", "sn_kw": "1"},
    # Positions at posenc.encodings.MAX_POSITION, the window at its last start (MAX_POSITION − WINDOW + 1)
    # (the RoPE/additive pick is inside the chart now: both matrices are sent either way).
    "lessons/rope.py": {**SIDEBAR_LARGEST, "rp_m": "10000000", "rp_n": "0", "rp_qw": "64", "rp_kw": "1",
                        "rp_start": "9999961", "rp_p": "10000000"},
    # The scheme and the query word are picked inside the charts now: the sidebar at its largest only.
    "lessons/explains.py": {**SIDEBAR_LARGEST},
    # Head dimension 512, the largest L_train, stretch, base and seq_len, 16 ALiBi heads (st_rho changes no
    # array size: left at its default).
    "lessons/stretch.py": {**SIDEBAR_LARGEST, "st_d": "512", "st_L": "1000000", "st_s": "64",
                           "st_base": "10000000", "st_len": "100000000", "st_heads": "16"},
}
